"""The webhook sender's HTTP (service/adapters/webhooks_http.py) against a real HTTP server
on loopback: it connects to the address it checked (so a DNS answer that changes after the
check cannot redirect it), re-resolves at every delivery, follows no redirect and gives up
on a silent receiver after its timeout."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.receiver import Receiver
from service.adapters.webhooks_http import HttpSender

HEADERS = {"webhook-id": "msg_x", "content-type": "application/json"}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


def _port(r: Receiver) -> int:
    assert r.server is not None
    return int(r.server.server_address[1])


def test_the_request_goes_to_the_checked_address_with_the_urls_host(receiver: Receiver) -> None:
    sender = HttpSender(5, allow_private=True, lookup=lambda host, port: ["127.0.0.1"])
    url = f"http://hooks.invalid:{_port(receiver)}/in?x=1"  # resolves only through the check
    assert sender.post(url, HEADERS, b"{}") == (204, None)
    got = receiver.requests[0]
    assert got.headers["host"] == f"hooks.invalid:{_port(receiver)}" and got.path == "/in?x=1"


def test_dns_is_checked_again_at_delivery_a_host_turned_private_is_refused(
    receiver: Receiver,
) -> None:
    answers = [["93.184.216.34"], ["127.0.0.1"]]  # public when registered, loopback later
    sender = HttpSender(5, allow_private=False, lookup=lambda host, port: answers.pop(0))
    url = f"http://rebind.invalid:{_port(receiver)}/"
    assert sender.refused(url) is None
    status, error = sender.post(url, HEADERS, b"{}")
    assert status is None and error is not None and "127.0.0.1" in error
    assert receiver.requests == []


def test_a_redirect_is_not_followed_and_does_not_count(receiver: Receiver) -> None:
    other = Receiver().start()
    try:
        receiver.redirect_to = other.url
        sender = HttpSender(5, allow_private=True)
        status, error = sender.post(receiver.url, HEADERS, b"{}")
        assert status == 302 and error is not None and "redirect" in error
        assert other.requests == []
    finally:
        other.stop()


def test_a_receiver_that_never_answers_costs_the_timeout(receiver: Receiver) -> None:
    receiver.holding.set()
    sender = HttpSender(0.5, allow_private=True)
    status, error = sender.post(receiver.url, HEADERS, b"{}")
    assert status is None and error == "no answer within 0.5 s"

"""The webhook sender's HTTP (service/adapters/http/webhooks.py) against a real HTTP server
on loopback: it connects to the address it checked (so a DNS answer that changes after the
check cannot redirect it), re-resolves at every delivery, follows no redirect and gives up
on a silent receiver after its timeout."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from devtools.receiver import Receiver
from service.adapters.http.webhooks import HttpSender
from tests.support.slow_receivers import Dripper, Flood

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


def _post_in_thread(sender: HttpSender, url: str) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(sender.post(url, HEADERS, b"{}")), daemon=True)
    t.start()
    return t, out


def test_a_receiver_dripping_its_answer_is_cut_at_the_tries_deadline() -> None:
    """A byte every 0.2 s never reaches a per-read timeout of 1 s: the try is given up at
    its wall-clock deadline while the receiver is still dripping (it drips for minutes)."""
    drip = Dripper().start()
    try:
        t, out = _post_in_thread(HttpSender(1, allow_private=True), drip.url)
        t.join(30)  # the bound of a broken sender, not a timing of a working one
        assert not t.is_alive(), "the try outlived its deadline"
        assert out == [(None, "no answer within 1 s")]
        assert not drip.released.is_set()
    finally:
        drip.stop()


def test_a_huge_answer_is_not_read_into_the_worker() -> None:
    """A 2xx with a 100 MB body: the status is what counts; the sender hangs up without
    reading the body (the receiver could write no more than the sockets' buffers)."""
    flood = Flood().start()
    try:
        t, out = _post_in_thread(HttpSender(30, allow_private=True), flood.url)
        t.join(60)
        assert not t.is_alive() and out == [(200, None)]
        assert flood.done.wait(30)
        assert flood.written < 16 * 2**20, f"{flood.written} bytes of the answer were taken"
    finally:
        flood.stop()

"""Webhook signatures, checked against the spec's published vector and the independent
`standardwebhooks` package (the spec's reference Python implementation) both ways; which
addresses a webhook may reach; the retry schedule."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from service.domain import webhooks as wh
from service.domain.errors import InputError
from service.domain.notices import Notice

# The Standard Webhooks spec's test vector (its reference libraries' tests use it).
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID, STAMP, BODY = "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}'
EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_signature_is_the_specs_and_the_reference_library_checks_ours() -> None:
    assert wh.sign(SECRET, MSG_ID, STAMP, BODY) == EXPECTED
    secret = wh.secret_from(os.urandom(24))
    body = wh.payload("job.succeeded", 1.7e9, "abc", "succeeded", {"a.wav": "http://x/a"}, None)
    now = int(datetime.now(UTC).timestamp())
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(now),
        "webhook-signature": wh.sign(secret, "msg_1", now, body),
    }
    assert Webhook(secret).verify(body, headers)["data"]["job_id"] == "abc"
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body + b" ", headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(wh.secret_from(os.urandom(24))).verify(body, headers)


def test_our_verify_accepts_the_reference_librarys_signature_and_refuses_replays() -> None:
    secret = wh.secret_from(os.urandom(24))
    at = datetime.now(UTC)
    their = Webhook(secret).sign("msg_2", at, BODY.decode())
    headers = {"Webhook-Id": "msg_2", "Webhook-Timestamp": str(int(at.timestamp()))}
    headers["Webhook-Signature"] = f"v1,bm90IGl0 {their}"  # several signatures: one matches
    assert wh.verify(secret, headers, BODY, at.timestamp())
    assert not wh.verify(secret, headers, BODY + b"x", at.timestamp())
    assert not wh.verify(secret, headers, BODY, at.timestamp() + wh.TOLERANCE + 1)
    assert not wh.verify(secret, {}, BODY, at.timestamp())


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "192.168.0.9", "172.16.0.1", "169.254.169.254", "100.64.0.1",
     "0.0.0.0", "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "fd00:ec2::254"],
)  # fmt: skip
def test_a_url_reaching_a_private_loopback_link_local_or_metadata_address_is_refused(
    address: str,
) -> None:
    assert wh.refused(["93.184.216.34", address]) is not None
    assert wh.refused(["93.184.216.34", "2606:4700::1111"]) is None
    assert wh.refused([]) == "its host does not resolve"


def test_only_http_urls_without_credentials_and_known_events() -> None:
    for bad in ("ftp://example.com/x", "file:///etc/passwd", "http://", "http://u:p@example.com/"):
        with pytest.raises(InputError):
            wh.check_url(bad)
    assert wh.check_events(None) == ["job.succeeded", "job.failed", "job.canceled"]
    with pytest.raises(InputError, match=r"job\.finished"):
        wh.check_events(["job.finished"])


def test_retries_back_off_exponentially_with_jitter_up_to_a_cap() -> None:
    assert [wh.backoff(n, 5, 3600, 1.0) for n in (1, 2, 3, 4)] == [5, 10, 20, 40]
    assert wh.backoff(30, 5, 3600, 1.0) == 3600
    assert wh.backoff(2, 5, 3600, 0.5) == 5 and wh.backoff(2, 5, 3600, 1.49) == pytest.approx(14.9)


def test_the_payload_carries_the_ids_status_links_and_error() -> None:
    error = {"code": "timeout", "message": "finalize timed out", "segment": None}
    notice = Notice(code="timeout", message="finalize timed out")
    body = json.loads(wh.payload("job.failed", 0, "j1", "failed", {}, notice))
    assert body == {
        "type": "job.failed",
        "timestamp": "1970-01-01T00:00:00Z",
        "data": {"job_id": "j1", "status": "failed", "artifacts": {}, "error": error},
    }


def test_narrate_webhooks_verify_tells_a_receiver_whether_a_delivery_is_genuine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.cli.main import main

    body = tmp_path / "body.json"
    body.write_bytes(BODY)
    args = ["webhooks", "verify", "--secret", SECRET, "--id", MSG_ID, "--timestamp", str(STAMP)]
    assert main([*args, "--signature", EXPECTED, "--now", str(STAMP), str(body)]) == 0
    assert capsys.readouterr().out == "valid\n"
    body.write_bytes(BODY + b" ")
    assert main([*args, "--signature", EXPECTED, "--now", str(STAMP), str(body)]) == 1
    body.write_bytes(BODY)
    assert main([*args, "--signature", EXPECTED, str(body)]) == 1  # years late: a replay


def test_a_lease_no_longer_than_a_try_is_refused_at_startup() -> None:
    from pydantic import ValidationError

    from service.config import Settings

    with pytest.raises(ValidationError, match="NARRATE_WEBHOOK_LEASE"):
        Settings(webhook_lease=10, webhook_timeout=10)
    assert Settings(webhook_lease=4, webhook_timeout=3).webhook_lease == 4


@pytest.mark.parametrize(
    ("address", "inside"),
    [
        ("::127.0.0.1", "127.0.0.1"),  # IPv4-compatible
        ("::a00:1", "10.0.0.1"),
        ("64:ff9b::7f00:1", "127.0.0.1"),  # NAT64, the well-known prefix
        ("64:ff9b::a9fe:a9fe", "169.254.169.254"),  # the metadata address through NAT64
        ("2002:7f00:1::", "127.0.0.1"),  # 6to4
        ("2002:c0a8:101::1", "192.168.1.1"),
        ("64:ff9b:1::a00:1", "64:ff9b:1::a00:1"),  # a local NAT64 prefix: never public
    ],
)
def test_an_ipv6_address_carrying_a_private_ipv4_one_is_refused(address: str, inside: str) -> None:
    why = wh.refused([address])
    assert why is not None and inside in why and "not a public address" in why


def test_an_ipv6_address_carrying_a_public_ipv4_one_is_allowed() -> None:
    assert wh.refused(["64:ff9b::808:808", "2002:808:808::1", "2606:4700::1111"]) is None


def test_a_url_with_two_ports_is_refused_naming_its_port() -> None:
    with pytest.raises(InputError, match="no valid port") as exc:
        wh.check_url("http://127.0.0.1:1:80/")
    assert exc.value.loc == ("url",)

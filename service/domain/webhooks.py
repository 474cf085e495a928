"""Webhooks as the Standard Webhooks spec (standardwebhooks.com) has them, pure: the events,
the signature, the payload, the retry schedule and which addresses a URL may reach. The
sending (DNS, HTTP) is service/adapters/webhooks_http.py; the outbox service/jobs/webhooks.py."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from service.domain.errors import InputError

EVENTS = ("job.succeeded", "job.failed", "job.canceled", "job.progress", "batch.completed")
DEFAULT_EVENTS = ("job.succeeded", "job.failed", "job.canceled")  # progress is opt-in
ENDED = {"succeeded": "job.succeeded", "failed": "job.failed", "canceled": "job.canceled"}
SECRET_PREFIX = "whsec_"
TOLERANCE = 300  # seconds a receiver accepts a timestamp away from its own clock
METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


def secret_from(raw: bytes) -> str:
    """A secret as the spec writes it: ``whsec_`` + base64 of the key bytes."""
    return SECRET_PREFIX + base64.b64encode(raw).decode("ascii")


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: ``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body``."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify(secret: str, headers: dict[str, str], body: bytes, now: float) -> bool:
    """What a receiver checks: one of the header's signatures (space-separated) matches, and
    the timestamp is within TOLERANCE of ``now`` (a replayed old message fails)."""
    low = {k.lower(): v for k, v in headers.items()}
    try:
        msg_id, ts = low["webhook-id"], int(low["webhook-timestamp"])
        given = low["webhook-signature"].split()
    except (KeyError, ValueError):
        return False
    if abs(now - ts) > TOLERANCE:
        return False
    want = sign(secret, msg_id, ts, body)
    return any(hmac.compare_digest(want, sig) for sig in given)


def check_events(events: list[str] | None) -> list[str]:
    """An endpoint's events: known names, each once; none given: every end of a job."""
    if not events:
        return list(DEFAULT_EVENTS)
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise InputError(f"unknown webhook event {unknown[0]!r}; known: {', '.join(EVENTS)}")
    return sorted(set(events))


def check_url(url: str) -> str:
    """A webhook URL's shape: http(s), a host, no credentials (the addresses it resolves to
    are checked by ``refused``)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"webhook URL {url!r} must be an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise InputError("a webhook URL may not carry a user name or password")
    if len(url) > 2000:
        raise InputError("a webhook URL may be at most 2000 characters long")
    return url


def refused(addresses: list[str]) -> str | None:
    """Why a URL that resolves to ``addresses`` may not be called (None: it may): loopback,
    private, link-local, cloud metadata, or any other address not on the public internet."""
    if not addresses:
        return "its host does not resolve"
    for a in addresses:
        ip = ipaddress.ip_address(a.split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if ip in METADATA or not ip.is_global:
            return f"it resolves to {ip}, which is not a public address"
    return None


def backoff(attempt: int, base: float, cap: float, jitter: float) -> float:
    """Seconds before try ``attempt + 1`` after ``attempt`` failed: base * 2^(attempt-1),
    capped, times ``jitter`` (drawn by the caller from [0.5, 1.5), so a fleet's retries of
    one receiver spread out)."""
    return min(cap, base * 2.0 ** max(0, attempt - 1)) * jitter


def payload(
    event: str,
    at: float,
    job_id: str,
    status: str,
    artifacts: dict[str, str],
    error: dict[str, Any] | None,
    stage: str = "",
) -> bytes:
    """The body of one event: ``type``, ``timestamp`` and ``data`` as the spec suggests."""
    data: dict[str, Any] = {"job_id": job_id, "status": status, "artifacts": artifacts}
    data["error"] = error
    if event == "job.progress":
        data["stage"] = stage
    return _envelope(event, at, data)


def batch_payload(
    at: float, batch_id: str, counts: dict[str, int], items: list[dict[str, Any]]
) -> bytes:
    """``batch.completed``: every item ended; how many ended each way, and each item's job."""
    data = {"batch_id": batch_id, "status": "completed", "counts": counts, "items": items}
    return _envelope("batch.completed", at, data)


def _envelope(event: str, at: float, data: dict[str, Any]) -> bytes:
    stamp = datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")
    body = {"type": event, "timestamp": stamp, "data": data}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

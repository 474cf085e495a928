"""Webhooks as the Standard Webhooks spec (standardwebhooks.com) has them, pure: the events,
the signature, the payload, the retry schedule and which addresses a URL may reach. The
sending (DNS, HTTP) is service/adapters/http/webhooks.py; the outbox service/jobs/webhooks.py."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
from datetime import UTC, datetime
from typing import NotRequired, TypedDict
from urllib.parse import urlsplit

from service.domain.errors import InputError
from service.domain.notices import Notice

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
    try:
        parts.port  # noqa: B018 (urllib checks it only when asked: '1:80' raised a 500)
    except ValueError:
        raise InputError(
            f"webhook URL {url!r} has no valid port (one number, 1-65535, after the host)",
            loc=("url",),
        ) from None
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
        given = ipaddress.ip_address(a.split("%")[0])
        ip = _embedded(given)
        mapped = isinstance(given, ipaddress.IPv6Address) and given.ipv4_mapped
        shown = str(ip) if ip == given or mapped else f"{given} ({ip})"
        if ip in METADATA or not ip.is_global or given in NAT64_LOCAL:
            return f"it resolves to {shown}, which is not a public address"
    return None


IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the well-known prefix (RFC 6052)
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: a network's own, any layout


def _embedded(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IPv4 address an IPv6 one carries and reaches (mapped ::ffff:a.b.c.d, compatible
    ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::), so it is judged by that one's
    range: Python calls 64:ff9b::7f00:1 and 2002:7f00:1:: global. (A local NAT64 prefix
    can embed an address anywhere: ``refused`` judges it not public.)"""
    if not isinstance(ip, ipaddress.IPv6Address):
        return ip
    low = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip in NAT64 or (ip in IPV4_COMPATIBLE and int(ip) > 1):
        return low
    return ip


def backoff(attempt: int, base: float, cap: float, jitter: float) -> float:
    """Seconds before try ``attempt + 1`` after ``attempt`` failed: base * 2^(attempt-1),
    capped, times ``jitter`` (drawn by the caller from [0.5, 1.5), so a fleet's retries of
    one receiver spread out)."""
    return min(cap, base * 2.0 ** max(0, attempt - 1)) * jitter


# The events' ``data`` as receivers read it (docs/guides/webhooks.md).
class NoticeData(TypedDict):
    code: str
    message: str
    segment: int | None


class JobEventData(TypedDict):
    job_id: str
    status: str
    artifacts: dict[str, str]  # artifact name -> its URL
    error: NoticeData | None
    stage: NotRequired[str]  # job.progress only


class ItemEventData(TypedDict):
    name: str
    job_id: str
    status: str  # the job's, or "deleted"


class BatchEventData(TypedDict):
    batch_id: str
    status: str
    counts: dict[str, int]
    items: list[ItemEventData]


def payload(
    event: str,
    at: float,
    job_id: str,
    status: str,
    artifacts: dict[str, str],
    error: Notice | None,
    stage: str = "",
) -> bytes:
    """The body of one event: ``type``, ``timestamp`` and ``data`` as the spec suggests."""
    shown: NoticeData | None = None
    if error is not None:
        shown = {"code": error.code, "message": error.message, "segment": error.segment}
    data: JobEventData = {
        "job_id": job_id,
        "status": status,
        "artifacts": artifacts,
        "error": shown,
    }
    if event == "job.progress":
        data["stage"] = stage
    return _envelope(event, at, data)


def batch_payload(
    at: float, batch_id: str, counts: dict[str, int], items: list[ItemEventData]
) -> bytes:
    """``batch.completed``: every item ended; how many ended each way, and each item's job."""
    data: BatchEventData = {
        "batch_id": batch_id,
        "status": "completed",
        "counts": counts,
        "items": items,
    }
    return _envelope("batch.completed", at, data)


def _envelope(event: str, at: float, data: JobEventData | BatchEventData) -> bytes:
    stamp = datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")
    body = {"type": event, "timestamp": stamp, "data": data}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

"""The webhooks' port: each tenant's endpoints and default secret, and the outbox of
deliveries the workers' senders claim, try and record (adapters/redis/webhooks.py in Redis,
adapters/memory/webhooks.py in memory). StoreUnavailable when the store cannot be reached."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a tenant wants its events. The secret is kept as given (it signs every
    delivery, so it cannot be stored hashed); the API shows it once, at creation."""

    id: str
    url: str
    events: list[str]
    secret: str
    created: float


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event for one URL. ``id`` is the ``webhook-id`` header: the same on every try, so
    a receiver dedupes redeliveries. ``endpoint`` "" means the job's own ``webhook_url``,
    signed with the tenant's default secret."""

    id: str
    tenant: str
    job_id: str
    event: str
    url: str
    endpoint: str
    body: str
    created: float
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try, as ``GET /v1/jobs/{id}/deliveries`` shows it."""

    at: float
    delivery: str
    event: str
    url: str
    endpoint: str
    status: int | None  # the HTTP status the receiver answered, None: no answer
    error: str | None  # why it did not count (no answer, not 2xx, refused address)
    next_try: float | None  # None: no more tries (delivered, or given up)


class WebhookEndpoints(Protocol):
    """Each tenant's receivers and its default secret."""

    def add_endpoint(self, tenant: str, endpoint: Endpoint, limit: int) -> bool:
        """False, adding nothing, when ``tenant`` has ``limit`` endpoints already."""
        ...

    def endpoints(self, tenant: str) -> list[Endpoint]: ...

    def delete_endpoint(self, tenant: str, endpoint_id: str) -> bool: ...

    def default_secret(self, tenant: str, new: str | None = None) -> str | None:
        """The tenant's default secret (for jobs' own ``webhook_url``); ``new`` replaces it."""
        ...


class Outbox(Protocol):
    """The deliveries waiting to be sent, each held by one sender at a time, and their tries."""

    def enqueue(self, delivery: Delivery, due: float) -> bool:
        """Put ``delivery`` in the outbox, due at ``due``, unless its id was queued before
        (False): an event written twice (a step that ran again) is sent once."""
        ...

    def claim(self, now: float, lease: float, limit: int) -> list[Delivery]:
        """Up to ``limit`` deliveries due by ``now``, each held for ``lease`` seconds: a
        sender killed mid-try lets its claim expire and another sender tries again."""
        ...

    def record(self, delivery: Delivery, attempt: Attempt) -> None:
        """Record a try; due again at ``attempt.next_try``, or out of the outbox for good."""
        ...

    def attempts(self, job_id: str) -> list[Attempt]: ...

    def pending(self) -> int:
        """Deliveries in the outbox (due or not)."""
        ...


class WebhookSender(Protocol):
    """Outbound HTTP to receivers, with the SSRF rule applied at every call."""

    def refused(self, url: str) -> str | None:
        """Why ``url`` may not be called (its host resolves to a non-public address, or not
        at all); None: it may."""
        ...

    def post(self, url: str, headers: dict[str, str], body: bytes) -> tuple[int | None, str | None]:
        """POST once, to the address just checked (DNS re-resolved, the checked IP pinned),
        following no redirect: (HTTP status or None, why it did not count or None)."""
        ...

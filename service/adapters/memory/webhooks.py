"""The webhook ports (WebhookEndpoints, Outbox) in this process's memory (the fast tier's
twin of adapters/redis/webhooks.py): the same rules under one lock. A claim holds a delivery
for its lease, a delivery id is queued once, a finished one leaves the outbox."""

from __future__ import annotations

import dataclasses
import threading

from service.ports.webhooks import Attempt, Delivery, Endpoint


class MemoryWebhooks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._endpoints: dict[str, dict[str, Endpoint]] = {}
        self._secrets: dict[str, str] = {}
        self._due: dict[str, float] = {}  # the outbox: delivery id -> due (or lease end)
        self._deliveries: dict[str, Delivery] = {}
        self._attempts: dict[str, list[Attempt]] = {}

    def add_endpoint(self, tenant: str, endpoint: Endpoint, limit: int) -> bool:
        with self._lock:
            mine = self._endpoints.setdefault(tenant, {})
            if len(mine) >= limit:
                return False
            mine[endpoint.id] = endpoint
            return True

    def endpoints(self, tenant: str) -> list[Endpoint]:
        with self._lock:
            found = self._endpoints.get(tenant, {}).values()
            return sorted(found, key=lambda e: (e.created, e.id))

    def delete_endpoint(self, tenant: str, endpoint_id: str) -> bool:
        with self._lock:
            return self._endpoints.get(tenant, {}).pop(endpoint_id, None) is not None

    def default_secret(self, tenant: str, new: str | None = None) -> str | None:
        with self._lock:
            if new is not None:
                self._secrets[tenant] = new
            return self._secrets.get(tenant)

    def enqueue(self, delivery: Delivery, due: float) -> bool:
        with self._lock:
            if delivery.id in self._deliveries:
                return False
            self._deliveries[delivery.id] = delivery
            self._due[delivery.id] = due
            return True

    def claim(self, now: float, lease: float, limit: int) -> list[Delivery]:
        with self._lock:
            due = sorted((at, i) for i, at in self._due.items() if at <= now)[:limit]
            for _, i in due:
                self._due[i] = now + lease
            return [self._deliveries[i] for _, i in due]

    def record(self, delivery: Delivery, attempt: Attempt) -> None:
        with self._lock:
            self._attempts.setdefault(delivery.job_id, []).append(attempt)
            d = self._deliveries[delivery.id]
            self._deliveries[delivery.id] = dataclasses.replace(d, attempts=d.attempts + 1)
            if attempt.next_try is None:
                self._due.pop(delivery.id, None)
            else:
                self._due[delivery.id] = attempt.next_try

    def attempts(self, job_id: str) -> list[Attempt]:
        with self._lock:
            return list(self._attempts.get(job_id, []))

    def pending(self) -> int:
        with self._lock:
            return len(self._due)

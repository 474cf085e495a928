"""The Quotas port in this process's memory (the twin of adapters/redis/quotas.py): the same token
bucket on an injectable clock, and the counts read off the memory job store."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from service.adapters.memory.jobstore import MemoryJobStore
from service.domain.job import JobStatus


class MemoryQuotas:
    def __init__(self, store: MemoryJobStore, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # tenant -> (tokens, at)
        self.held: dict[str, dict[str, tuple[int, float]]] = {}  # tenant -> id -> (jobs, until)
        self.lock = threading.Lock()  # a reservation is checked and kept in one step

    def take(self, tenant: str, per_minute: int) -> float:
        now, rate = self.clock(), per_minute / 60
        tokens, at = self.buckets.get(tenant, (float(per_minute), now))
        tokens = min(float(per_minute), tokens + max(0.0, now - at) * rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / rate
        self.buckets[tenant] = (tokens, now)
        return wait

    def in_use(self, tenant: str) -> tuple[int, int]:
        states = [j.status for j in list(self.store._jobs.values()) if j.tenant == tenant]
        return states.count(JobStatus.QUEUED), states.count(JobStatus.RUNNING)

    def reserve(
        self, tenant: str, token: str, jobs: int, limit: int, ttl: float
    ) -> tuple[bool, int]:
        with self.lock:
            now = self.clock()
            mine = {i: h for i, h in self.held.get(tenant, {}).items() if h[1] > now}
            used = self.in_use(tenant)[0] + sum(n for n, _ in mine.values())
            if used + jobs <= limit:
                mine[token] = (jobs, now + ttl)
            self.held[tenant] = mine
            return used + jobs <= limit, used

    def release(self, tenant: str, token: str) -> None:
        with self.lock:
            self.held.get(tenant, {}).pop(token, None)

"""The Quotas port in this process's memory (the twin of adapters/quotas.py): the same token
bucket on an injectable clock, and the counts read off the memory job store."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.adapters.memory import MemoryJobStore


class MemoryQuotas:
    def __init__(self, store: MemoryJobStore, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # tenant -> (tokens, at)

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
        return states.count("queued"), states.count("running")

"""/readyz's answer, cached: any number of probes at once cost one Redis read a second, in
one thread of its own, so readiness can neither exhaust a pool nor wait on one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import anyio
from fastapi import FastAPI

Checks = dict[str, bool | int | float | None]


class ReadyCache:
    def __init__(
        self,
        read: Callable[[], Checks],
        ttl: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self._ttl = ttl
        self._clock = clock
        self._answer: Checks = {}
        self._at = float("-inf")
        self._lock: asyncio.Lock | None = None  # made on the event loop, at first use
        self._limiter: anyio.CapacityLimiter | None = None

    def _fresh(self) -> bool:
        return self._clock() - self._at < self._ttl

    async def get(self) -> Checks:
        """The last answer if under ``ttl`` old; else one caller reads while the others wait
        for that read (as coroutines: no thread each)."""
        if self._fresh():
            return self._answer
        if self._lock is None or self._limiter is None:
            self._lock, self._limiter = asyncio.Lock(), anyio.CapacityLimiter(1)
        async with self._lock:
            if not self._fresh():
                # Its own limiter: never a token of the pool the request path's routes use.
                self._answer = await anyio.to_thread.run_sync(self._read, limiter=self._limiter)
                self._at = self._clock()
        return self._answer


def ready_cache(app: FastAPI) -> ReadyCache:
    """The app's cache, made at the first probe (on the event loop: no race)."""
    cache: ReadyCache | None = getattr(app.state, "ready", None)
    if cache is None:
        cache = app.state.ready = ReadyCache(app.state.jobs.readiness)
    return cache

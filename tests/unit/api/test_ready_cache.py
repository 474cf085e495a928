"""/readyz's cache: however many callers at once, one read of the fleet per second."""

from __future__ import annotations

import asyncio
import threading

from service.api.ready import Checks, ReadyCache


def test_fifty_concurrent_callers_cost_one_read_and_the_answer_is_kept_a_second() -> None:
    reads = 0
    release = threading.Event()
    now = [100.0]

    def read() -> Checks:
        nonlocal reads
        reads += 1
        release.wait(5)  # a slow Redis: every caller arrives while this read is in flight
        return {"redis": True, "workers": reads}

    cache = ReadyCache(read, ttl=1.0, clock=lambda: now[0])

    async def scenario() -> None:
        calls = [asyncio.create_task(cache.get()) for _ in range(50)]
        await asyncio.sleep(0)  # every caller is waiting now: one on the read, 49 on it
        release.set()
        assert await asyncio.gather(*calls) == [{"redis": True, "workers": 1}] * 50
        assert reads == 1
        now[0] += 0.5
        assert await cache.get() == {"redis": True, "workers": 1} and reads == 1
        now[0] += 0.6
        assert await cache.get() == {"redis": True, "workers": 2} and reads == 2

    asyncio.run(scenario())

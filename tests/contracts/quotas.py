"""One contract, two Quotas: the Redis one (a token bucket in one Lua step, on a key that
expires; queued/running counts moved by the job store's own scripts) and the in-memory twin
the fast tier runs on. Plus `narrate keys create --max-queued/--max-running/--per-minute/--max-batch-items/--weight`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest

from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.queue import MemoryQueue
from service.adapters.memory.quotas import MemoryQuotas
from service.ports import NewJob, Quotas
from tests.contracts.jobstore import job, msg
from tests.support.jobs import to


@dataclass
class Under:
    quotas: Quotas
    store: Any  # a job store: every role of it


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    if request.getfixturevalue("backend") == "memory":
        store = MemoryJobStore(MemoryQueue())
        return Under(MemoryQuotas(store), store)
    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.quotas import RedisQuotas

    redis_store = RedisJobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    redis_store.r.flushdb()
    return Under(RedisQuotas(redis_store.r), redis_store)


def test_the_bucket_gives_a_minutes_worth_at_once_then_says_how_long(under: Under) -> None:
    assert [under.quotas.take("alpha", 5) for _ in range(5)] == [0.0] * 5
    wait = under.quotas.take("alpha", 5)
    assert 0 < wait <= 12  # one token every 12 s at 5 a minute
    assert under.quotas.take("beta", 5) == 0.0  # each tenant its own bucket


def test_counts_follow_each_tenants_jobs_through_their_states(under: Under) -> None:
    s = under.store
    for i in range(3):
        s.create(NewJob(job(f"a{i}"), None, [msg(f"a{i}", 0)], "q"))
    s.create(NewJob(job("b0", "beta"), None, [msg("b0", 0)], "q"))
    assert under.quotas.in_use("alpha") == (3, 0) and under.quotas.in_use("beta") == (1, 0)
    assert s.advance("a0", to("running")) and s.advance("a1", to("running"))
    assert not s.advance("a0", to("queued"))  # never back: the counts do not move either
    assert under.quotas.in_use("alpha") == (1, 2)
    assert s.advance("a0", to("succeeded")) and s.advance("a2", to("canceled"))
    assert under.quotas.in_use("alpha") == (0, 1)
    found = s.get("a1")
    assert found is not None
    s.discard(found)
    assert under.quotas.in_use("alpha") == (0, 0) and under.quotas.in_use("beta") == (1, 0)


def test_a_reservation_counts_as_queued_until_released(under: Under) -> None:
    """Admission reserves its jobs in one atomic step (10 batches of 10 at once against a
    limit of 10 got 30 queued when the count was read, then stored after planning)."""
    s, q = under.store, under.quotas
    s.create(NewJob(job("a0"), None, [msg("a0", 0)], "q"))
    assert q.reserve("alpha", "r1", 9, 10, 60) == (True, 1)  # 1 queued + 9 now held
    assert q.reserve("alpha", "r2", 1, 10, 60) == (False, 10)  # nothing held by a refusal
    assert q.reserve("beta", "r3", 10, 10, 60) == (True, 0)  # each tenant its own
    q.release("alpha", "r1")
    assert q.reserve("alpha", "r2", 9, 10, 60) == (True, 1)
    q.release("alpha", "r2")
    q.release("alpha", "r2")  # twice: nothing more freed
    assert q.reserve("alpha", "r4", 10, 10, 60) == (False, 1)


def test_a_reservation_never_released_lapses_after_its_ttl(under: Under) -> None:
    """An API process dying mid-batch frees its reservation when the TTL runs out."""
    assert under.quotas.reserve("alpha", "dead", 10, 10, 0.3)[0]
    deadline = time.monotonic() + 30
    while not under.quotas.reserve("alpha", "next", 10, 10, 60)[0]:
        assert time.monotonic() < deadline, "the dead reservation never lapsed"
        time.sleep(0.05)

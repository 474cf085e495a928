"""The contract of the tenants' lanes and the dispatch lease (tests/contracts/lanes.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from tests.contracts.lanes import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"


def test_redis_fleet_reads_who_holds_the_lease_and_since_when_it_was_last_held(
    redis_url: str,
) -> None:
    """What /readyz reports: the holder now, and seconds since any holder last renewed."""
    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.lanes import RedisLease
    from tests.support.helpers import eventually

    store = RedisJobStore.from_url(redis_url, 2.0, 2.0)
    store.r.flushdb()
    lease = RedisLease(store.r)
    never = store.fleet(15.0)
    assert never.dispatcher is None and never.dispatcher_seen is None
    assert lease.acquire("one", 0.3)
    held = store.fleet(15.0)
    assert held.dispatcher == "one" and held.dispatcher_seen is not None
    assert 0 <= held.dispatcher_seen < 1
    eventually(lambda: store.fleet(15.0).dispatcher is None, "the lease lapsed", 5)
    lapsed = store.fleet(15.0).dispatcher_seen
    assert lapsed is not None and lapsed >= 0.3  # since its last renewal, on Redis's clock
    assert lease.acquire("two", 5) and store.fleet(15.0).dispatcher == "two"
    lease.release("two")
    assert store.fleet(15.0).dispatcher is None

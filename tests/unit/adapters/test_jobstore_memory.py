"""The contract of the job store (tests/contracts/jobstore.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from devtools.stack import free_port
from service.domain.errors import StoreUnavailable
from service.ports import NewJob
from tests.contracts.jobstore import *  # noqa: F403 (the suite: its tests and fixture)
from tests.contracts.jobstore import job


@pytest.fixture
def backend() -> str:
    return "memory"


def test_an_unreachable_redis_is_a_store_unavailable_error_not_a_redis_one() -> None:
    """The jobs layer, the API and the workers know StoreUnavailable, never redis's errors:
    the job store, the metrics and the edge guard all translate them."""
    import redis

    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.metrics import Metrics
    from service.adapters.tts.guard import RedisGuard

    store = RedisJobStore.from_url(f"redis://127.0.0.1:{free_port()}/0", 0.5, 0.5)
    guard = RedisGuard(store.r, "edge", 2, 3, 1.0)
    calls: list[Callable[[], object]] = [
        lambda: store.get("a1"),
        lambda: store.get_many(["a1", "a2"]),
        lambda: store.create(NewJob(job("a1"))),
        lambda: store.fleet(10.0),
        lambda: Metrics(store.r).tts_calls(),
        guard.allow,
        guard.failure,
    ]
    for call in calls:
        with pytest.raises(StoreUnavailable) as caught:
            call()
        assert not isinstance(caught.value, redis.RedisError)
    with pytest.raises(StoreUnavailable), guard.slot(0.1):
        pass
    assert store.ping() is False

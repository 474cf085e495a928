"""The contract of the quotas (tests/contracts/quotas.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from service.ports import NewJob
from tests.contracts.jobstore import job, msg
from tests.contracts.quotas import *  # noqa: F403 (the suite: its tests and fixture)
from tests.support.jobs import to


@pytest.fixture
def backend() -> str:
    return "redis"


def test_the_redis_bucket_expires_so_idle_tenants_keep_nothing(redis_url: str) -> None:
    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.quotas import RedisQuotas

    r = RedisJobStore.from_url(redis_url, 2.0, 2.0).r
    r.flushdb()
    RedisQuotas(r).take("alpha", 600)
    assert 0 < r.ttl("narrate:quota:alpha:bucket") <= 61


def test_redis_metrics_read_the_tenant_counts(redis_url: str) -> None:
    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.metrics import Metrics

    store = RedisJobStore.from_url(redis_url, 2.0, 2.0)
    store.r.flushdb()
    store.create(NewJob(job("a0", "beta"), None, [msg("a0", 0)], "q"))
    store.create(NewJob(job("a1", "alpha"), None, [msg("a1", 0)], "q"))
    assert store.advance("a1", to("running"))
    found = Metrics(store.r).tenant_jobs()
    assert found[("alpha", "running")] == 1 and found[("alpha", "queued")] == 0
    assert found[("beta", "queued")] == 1

"""One contract, two Quotas: the Redis one (a token bucket in one Lua step, on a key that
expires; queued/running counts moved by the job store's own scripts) and the in-memory twin
the fast tier runs on. Plus `narrate keys create --max-queued/--max-running/--per-minute/--max-batch-items/--weight`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from service.adapters.memory import MemoryJobStore
from service.adapters.memory_queue import MemoryQueue
from service.adapters.memory_quotas import MemoryQuotas
from service.ports import JobStore, Quotas
from tests.helpers import narrate
from tests.test_jobstore_contract import job, msg


@dataclass
class Under:
    quotas: Quotas
    store: JobStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.integration)])
def under(request: pytest.FixtureRequest) -> Under:
    if request.param == "memory":
        store = MemoryJobStore(MemoryQueue())
        return Under(MemoryQuotas(store), store)
    from service.adapters.jobstore import JobStore as RedisJobStore
    from service.adapters.quotas import RedisQuotas

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
        s.create(job(f"a{i}"), None, [msg(f"a{i}", 0)], "q")
    s.create(job("b0", "beta"), None, [msg("b0", 0)], "q")
    assert under.quotas.in_use("alpha") == (3, 0) and under.quotas.in_use("beta") == (1, 0)
    assert s.advance("a0", "running") and s.advance("a1", "running")
    assert not s.advance("a0", "queued")  # never back: the counts do not move either
    assert under.quotas.in_use("alpha") == (1, 2)
    assert s.advance("a0", "succeeded") and s.advance("a2", "canceled")
    assert under.quotas.in_use("alpha") == (0, 1)
    found = s.get("a1")
    assert found is not None
    s.discard(found)
    assert under.quotas.in_use("alpha") == (0, 0) and under.quotas.in_use("beta") == (1, 0)


@pytest.mark.integration
def test_the_redis_bucket_expires_so_idle_tenants_keep_nothing(redis_url: str) -> None:
    from service.adapters.jobstore import JobStore as RedisJobStore
    from service.adapters.quotas import RedisQuotas

    r = RedisJobStore.from_url(redis_url, 2.0, 2.0).r
    r.flushdb()
    RedisQuotas(r).take("alpha", 600)
    assert 0 < r.ttl("narrate:quota:alpha:bucket") <= 61


def test_the_memory_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    q = MemoryQuotas(MemoryJobStore(), clock=lambda: now[0])
    assert [q.take("alpha", 60) > 0 for _ in range(61)] == [False] * 60 + [True]
    now[0] = 1.0  # one a second at 60 a minute
    assert q.take("alpha", 60) == 0.0 and q.take("alpha", 60) > 0


def test_keys_create_stores_the_tenants_own_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NARRATE_DATA_DIR", str(tmp_path))
    made = narrate(
        "keys", "create", "gamma", "--max-queued", "7", "--per-minute", "30", "--weight", "3",
        "--max-batch-items", "5",
    )  # fmt: skip
    bad = narrate("keys", "create", "delta", "--max-running", "0")
    assert made.returncode == 0, made.stderr
    entry = next(iter(json.loads((tmp_path / "keys.json").read_text()).values()))
    assert entry["limits"] == {"max_queued": 7, "per_minute": 30, "weight": 3, "max_batch_items": 5}
    assert bad.returncode == 2 and "'0' is not a whole number of at least 1" in bad.stderr


@pytest.mark.integration
def test_redis_metrics_read_the_tenant_counts(redis_url: str) -> None:
    from service.adapters.jobstore import JobStore as RedisJobStore
    from service.adapters.metrics import Metrics

    store = RedisJobStore.from_url(redis_url, 2.0, 2.0)
    store.r.flushdb()
    store.create(job("a0", "beta"), None, [msg("a0", 0)], "q")
    store.create(job("a1", "alpha"), None, [msg("a1", 0)], "q")
    assert store.advance("a1", "running")
    found = Metrics(store.r).tenant_jobs()
    assert found[("alpha", "running")] == 1 and found[("alpha", "queued")] == 0
    assert found[("beta", "queued")] == 1

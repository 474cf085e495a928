"""The contract of the job store (tests/contracts/jobstore.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

from typing import Any

import pytest

from service.ports import NewJob
from tests.contracts.jobstore import *  # noqa: F403 (the suite: its tests and fixture)
from tests.contracts.jobstore import job


@pytest.fixture
def backend() -> str:
    return "redis"


def test_redis_reads_many_jobs_in_one_round_trip(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.adapters.redis.jobstore import JobStore as RedisJobStore

    store = RedisJobStore.from_url(redis_url, 2.0, 2.0)
    store.r.flushdb()
    for i in range(20):
        store.create(NewJob(job(f"a{i}")))
    trips: list[int] = []
    pipeline = store.r.pipeline

    def counted(*args: Any, **kw: Any) -> Any:
        pipe = pipeline(*args, **kw)
        execute = pipe.execute

        def once(*a: Any, **k: Any) -> Any:
            trips.append(len(pipe.command_stack))
            return execute(*a, **k)

        pipe.execute = once
        return pipe

    def refused(*args: Any, **kw: Any) -> Any:
        raise AssertionError(f"a command of its own: {args}")

    monkeypatch.setattr(store.r, "pipeline", counted)
    monkeypatch.setattr(store.r, "execute_command", refused)
    found = store.get_many([f"a{i}" for i in range(20)])
    assert [j.id for j in found if j] == [f"a{i}" for i in range(20)]
    assert trips == [40]  # the record and the segments of each, one pipeline

"""The contract of the job sweep (tests/contracts/sweep.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from tests.contracts.sweep import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"


def test_the_keys_of_a_job_whose_record_is_gone_are_strays_until_removed(
    redis_url: str,
) -> None:
    import redis

    from service.adapters.backend import open_stores
    from service.config import Settings
    from service.ports import NewJob
    from tests.contracts.jobstore import job

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    stores = open_stores(Settings(redis_url=redis_url, redis_timeout=2.0))
    stores.records.create(NewJob(job("a1")))
    stores.records.create(NewJob(job("a2")))
    client.delete("narrate:job:a1")  # the record alone gone (a crash between deletes)
    keys, entries = stores.sweep.strays()
    assert sorted(keys) == ["narrate:job:a1:remaining", "narrate:job:a1:seg"]
    assert entries == [("narrate:tenant:alpha:jobs", "a1")]
    stores.sweep.remove(keys, entries)
    assert stores.sweep.strays() == ([], [])
    assert stores.sweep.existing(["a1", "a2"]) == {"a2"}

"""The contract of the fleet registry (tests/contracts/fleet.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from tests.contracts.fleet import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"


def test_a_worker_is_live_by_its_beat_and_dead_past_dead_after(redis_url: str) -> None:
    import redis

    from service.adapters.backend import open_stores
    from service.config import Settings

    redis.Redis.from_url(redis_url).flushdb()
    fleet = open_stores(Settings(redis_url=redis_url, redis_timeout=2.0)).fleet
    fleet.beat("w1 1", ["tag-1"])
    fleet.announce("w1 1", "local:/srv/narrate")
    found = fleet.fleet(dead_after=60.0)
    assert "w1 1" in found.live and found.storages == {"w1 1": "local:/srv/narrate"}
    # Every beat is older than a negative dead_after: the worker counts dead, its storage unsaid.
    found = fleet.fleet(dead_after=-1.0)
    assert "w1 1" in found.dead and "w1 1" not in found.live
    assert "w1 1" not in (found.storages or {})

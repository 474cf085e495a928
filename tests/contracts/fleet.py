"""One contract, two fleets (the FleetRegistry port): the heartbeats in Redis
(adapters/redis/fleet.py, on a redis-server of the test's own) and the memory backend's
fleet, its own process and always alive. What /health, the dispatcher and the reconciler read
of it holds on both: a worker's beat makes a live fleet, a worker that left cleanly is neither
live nor dead, and only a live worker's storage is said."""

from __future__ import annotations

import pytest

from tests.contracts.jobstore import Under, open_under


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    return open_under(request)


def test_a_worker_that_beats_makes_a_live_fleet(under: Under) -> None:
    fleet = under.stores.fleet
    fleet.beat("w1 1", ["tag-1"])
    fleet.announce("w1 1", "local:/srv/narrate")
    found = fleet.fleet(dead_after=60.0)
    assert found.live and not found.dead
    assert set(found.storages or {}) <= set(found.live)  # only a live worker's is said


def test_a_worker_that_left_is_neither_live_nor_dead(under: Under) -> None:
    fleet = under.stores.fleet
    fleet.beat("w1 1", [])
    fleet.beat("w2 2", [])
    fleet.announce("w1 1", "local:/srv/narrate")
    fleet.leave("w1 1")
    found = fleet.fleet(dead_after=60.0)
    assert "w1 1" not in found.live and "w1 1" not in found.dead
    assert "w1 1" not in (found.storages or {})
    assert found.live  # the other worker still beats


def test_each_worker_is_listed_once(under: Under) -> None:
    fleet = under.stores.fleet
    for worker in ("w1 1", "w2 2", "w1 1"):
        fleet.beat(worker, [])
    found = fleet.fleet(dead_after=60.0)
    listed = [*found.live, *found.dead]
    assert len(listed) == len(set(listed))

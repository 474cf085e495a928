"""The contract of the fleet registry (tests/contracts/fleet.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import pytest

from tests.contracts.fleet import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "memory"


def test_the_memory_fleet_is_this_process_and_it_dispatches() -> None:
    """No workers but ``drain``: the fleet is always this one live process, the dispatcher's
    lease held by it (the memory queue's drain dispatches)."""
    from service.adapters.backend import open_stores
    from service.config import Settings

    fleet = open_stores(Settings(redis_url="memory://")).fleet
    fleet.beat("w1 1", ["tag-1"])
    found = fleet.fleet(dead_after=-1.0)  # no beat is that recent: nothing dies here
    assert (found.live, found.dead, found.dispatcher) == (["memory"], [], "memory")

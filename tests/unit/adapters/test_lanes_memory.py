"""The contract of the tenants' lanes and the dispatch lease (tests/contracts/lanes.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import pytest

from tests.contracts.lanes import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "memory"

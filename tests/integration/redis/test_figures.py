"""The contract of the metrics and counts (tests/contracts/figures.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from tests.contracts.figures import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"

"""The contract of the job sweep (tests/contracts/sweep.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import pytest

from tests.contracts.sweep import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "memory"

"""The contract of the batch event log (tests/contracts/batch_events.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import pytest

from tests.contracts.batch_events import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "memory"

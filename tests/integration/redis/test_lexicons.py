"""The contract of the dictionary store (tests/contracts/lexicons.py) on a real Redis."""

from __future__ import annotations

import pytest

from tests.contracts.lexicons import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"

"""The contract of the webhook store (tests/contracts/webhookstore.py) on a real Redis, and what only the
Redis adapter does."""

from __future__ import annotations

import pytest

from tests.contracts.webhookstore import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"

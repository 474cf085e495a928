"""The contract of the quotas (tests/contracts/quotas.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import pytest

from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.quotas import MemoryQuotas
from tests.contracts.quotas import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "memory"


def test_the_memory_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    q = MemoryQuotas(MemoryJobStore(), clock=lambda: now[0])
    assert [q.take("alpha", 60) > 0 for _ in range(61)] == [False] * 60 + [True]
    now[0] = 1.0  # one a second at 60 a minute
    assert q.take("alpha", 60) == 0.0 and q.take("alpha", 60) > 0

"""The contract of the quotas (tests/contracts/quotas.py) on the in-memory adapter, and what
only it does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.adapters.memory import MemoryJobStore
from service.adapters.memory_quotas import MemoryQuotas
from tests.contracts.quotas import *  # noqa: F403 (the suite: its tests and fixture)
from tests.support.helpers import narrate


@pytest.fixture
def backend() -> str:
    return "memory"


def test_the_memory_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    q = MemoryQuotas(MemoryJobStore(), clock=lambda: now[0])
    assert [q.take("alpha", 60) > 0 for _ in range(61)] == [False] * 60 + [True]
    now[0] = 1.0  # one a second at 60 a minute
    assert q.take("alpha", 60) == 0.0 and q.take("alpha", 60) > 0


def test_keys_create_stores_the_tenants_own_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NARRATE_DATA_DIR", str(tmp_path))
    made = narrate(
        "keys", "create", "gamma", "--max-queued", "7", "--per-minute", "30", "--weight", "3",
        "--max-batch-items", "5",
    )  # fmt: skip
    bad = narrate("keys", "create", "delta", "--max-running", "0")
    assert made.returncode == 0, made.stderr
    entry = next(iter(json.loads((tmp_path / "keys.json").read_text()).values()))
    assert entry["limits"] == {"max_queued": 7, "per_minute": 30, "weight": 3, "max_batch_items": 5}
    assert bad.returncode == 2 and "'0' is not a whole number of at least 1" in bad.stderr

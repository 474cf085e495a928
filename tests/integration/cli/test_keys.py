"""`narrate keys create`: a tenant's own limits stored with its key, a bad limit refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.helpers import narrate


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

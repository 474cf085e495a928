"""`narrate keys create`: a tenant's own limits stored with its key (in the shared store),
a bad limit refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.adapters.redis.jobstore import JobStore
from service.adapters.redis.tenant_keys import RedisTenantKeys
from tests.support.helpers import narrate


def test_keys_create_stores_the_tenants_own_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("NARRATE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("NARRATE_REDIS_URL", redis_url)
    made = narrate(
        "keys", "create", "gamma", "--max-queued", "7", "--per-minute", "30", "--weight", "3",
        "--max-batch-items", "5",
    )  # fmt: skip
    bad = narrate("keys", "create", "delta", "--max-running", "0")
    assert made.returncode == 0, made.stderr
    (record,) = RedisTenantKeys(JobStore.from_url(redis_url).r).of_tenant("gamma")
    assert record.tenant == "gamma"
    assert record.limits == {"max_queued": 7, "per_minute": 30, "weight": 3, "max_batch_items": 5}
    assert bad.returncode == 2 and "'0' is not a whole number of at least 1" in bad.stderr

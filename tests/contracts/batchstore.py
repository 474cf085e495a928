"""One contract, two batch stores: the Redis one (a record, a listing and the batch's
Idempotency-Key stored in one script, on a redis-server of the test's own) and the in-memory
twin the fast tier runs the API on."""

from __future__ import annotations

import pytest

from service.adapters.memory.batches import MemoryBatches
from service.domain.batch import Batch, BatchItem
from service.domain.errors import IdempotencyConflict
from service.ports import BatchStore


@pytest.fixture
def store(request: pytest.FixtureRequest) -> BatchStore:
    if request.getfixturevalue("backend") == "memory":
        return MemoryBatches()
    from service.adapters.redis.batches import RedisBatches
    from service.adapters.redis.jobstore import JobStore

    jobs = JobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    jobs.r.flushdb()
    return RedisBatches(jobs.r, 3600)


def batch(n: int, tenant: str = "alpha", created: float = 1000.0) -> Batch:
    items = [BatchItem("intro", f"job{n}a"), BatchItem("outro", f"job{n}b")]
    return Batch(f"b{n}", tenant, created, items, [{"name": "bad", "detail": []}])


def test_a_batch_reads_back_whole_and_only_as_its_own_id(store: BatchStore) -> None:
    made, new = store.create(batch(1))
    assert new and store.get("b1") == made == batch(1)
    assert store.get("b2") is None
    store.discard(made)
    assert store.get("b1") is None and store.page("alpha", 10, None) == ([], None)


def test_one_idempotency_key_makes_one_batch(store: BatchStore) -> None:
    first, new = store.create(batch(1), ("k", "hash"))
    again, replay = store.create(batch(2), ("k", "hash"))
    assert new and not replay and again.id == first.id == "b1"
    assert store.get("b2") is None
    with pytest.raises(IdempotencyConflict):
        store.create(batch(3), ("k", "other"))
    _, other_tenant = store.create(batch(4, "beta"), ("k", "hash"))
    assert other_tenant  # keys are per tenant
    store.discard(first, "k")  # the key goes with the batch: a retry makes a new one
    assert store.create(batch(5), ("k", "hash"))[1]


def test_pages_are_newest_first_and_per_tenant(store: BatchStore) -> None:
    for n in range(5):
        store.create(batch(n, created=1000.0 + (n // 2)))  # two share each millisecond
    store.create(batch(9, "beta"))
    first, cursor = store.page("alpha", 3, None)
    rest, end = store.page("alpha", 3, cursor)
    assert [b.id for b in first + rest] == ["b4", "b3", "b2", "b1", "b0"]
    assert end is None and cursor is not None
    assert [b.id for b in store.page("beta", 10, None)[0]] == ["b9"]

"""One contract, two preset stores: the Redis one (a hash per tenant and its save-within-the-
limit script, on a redis-server of the test's own) and the in-memory twin the fast tier runs
the API on."""

from __future__ import annotations

import threading

import pytest

from service.adapters.memory.presets import MemoryPresets
from service.ports import PresetStore


@pytest.fixture
def store(request: pytest.FixtureRequest) -> PresetStore:
    if request.getfixturevalue("backend") == "memory":
        return MemoryPresets()
    from service.adapters.redis.jobstore import JobStore
    from service.adapters.redis.presets import RedisPresets

    jobs = JobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    jobs.r.flushdb()
    return RedisPresets(jobs.r)


def test_each_tenant_has_its_own_presets(store: PresetStore) -> None:
    assert store.put("alpha", "short", '{"burn_in": true}', 10)
    assert store.put("beta", "short", '{"burn_in": false}', 10)
    assert store.get("alpha", "short") == '{"burn_in": true}'
    assert store.saved("beta") == {"short": '{"burn_in": false}'}
    assert store.get("gamma", "short") is None and store.saved("gamma") == {}
    assert store.put("alpha", "short", '{"engine": "espeak"}', 10)  # replaced
    assert store.saved("alpha") == {"short": '{"engine": "espeak"}'}
    assert store.delete("alpha", "short") and not store.delete("alpha", "short")
    assert store.get("beta", "short") == '{"burn_in": false}'


def test_the_limit_holds_for_new_names_even_when_saved_at_once(store: PresetStore) -> None:
    assert all(store.put("alpha", f"p{i}", "{}", 3) for i in range(3))
    assert not store.put("alpha", "p3", "{}", 3)  # a fourth: refused, nothing saved
    assert store.put("alpha", "p0", '{"burn_in": true}', 3)  # replacing one is not more
    assert store.get("alpha", "p3") is None and len(store.saved("alpha")) == 3
    store.delete("alpha", "p0")
    results: list[bool] = []
    threads = [
        threading.Thread(target=lambda n=n: results.append(store.put("alpha", n, "{}", 3)))
        for n in ("x", "y", "z", "w")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1 and len(store.saved("alpha")) == 3

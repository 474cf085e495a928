"""One contract, two dictionary stores: the Redis one (hashes and lists per tenant and its
create/update scripts, on a redis-server of the test's own) and the in-memory twin the fast
tier runs the API on."""

from __future__ import annotations

import threading

import pytest

from service.adapters.memory.lexicons import MemoryLexicons
from service.ports import LexiconStore, LexiconVersion


@pytest.fixture
def store(request: pytest.FixtureRequest) -> LexiconStore:
    if request.getfixturevalue("backend") == "memory":
        return MemoryLexicons()
    from service.adapters.redis.jobstore import JobStore
    from service.adapters.redis.lexicons import RedisLexicons

    jobs = JobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    jobs.r.flushdb()
    return RedisLexicons(jobs.r)


def v(tenant: str, lexicon_id: str, about: str = "{}", data: str = "[]") -> LexiconVersion:
    """A version to write (the rules and summary as JSON: these tests only compare them)."""
    return LexiconVersion(tenant, lexicon_id, about, data)


def test_each_tenant_has_its_own_dictionaries(store: LexiconStore) -> None:
    assert store.create(v("alpha", "d1", '{"name": "a"}', '["v1"]'), 10)
    assert store.create(v("beta", "d1", '{"name": "b"}', '["other"]'), 10)
    assert store.get("alpha", "d1") == (1, '["v1"]')
    assert store.get("beta", "d1") == (1, '["other"]')
    assert store.get("gamma", "d1") is None and store.latest("gamma") == {}
    assert store.versions("gamma", "d1") == [] and store.update(v("gamma", "d1"), 9) == 0
    assert store.latest("alpha") == {"d1": (1, '{"name": "a"}')}
    assert not store.create(v("alpha", "d1"), 10)  # that id is taken: nothing stored
    assert store.get("alpha", "d1") == (1, '["v1"]')
    assert store.delete("alpha", "d1") and not store.delete("alpha", "d1")
    assert store.get("alpha", "d1") is None and store.versions("alpha", "d1") == []
    assert store.get("beta", "d1") == (1, '["other"]')


def test_an_update_is_a_new_version_and_the_older_ones_stay(store: LexiconStore) -> None:
    assert store.create(v("alpha", "d1", '{"n": 1}', '["v1"]'), 10)
    assert store.update(v("alpha", "d1", '{"n": 2}', '["v2"]'), 3) == 2
    assert store.update(v("alpha", "d1", '{"n": 3}', '["v3"]'), 3) == 3
    assert store.update(v("alpha", "d1", '{"n": 4}', '["v4"]'), 3) == -1  # at the limit
    assert store.get("alpha", "d1") == (3, '["v3"]')
    assert store.get("alpha", "d1", 1) == (1, '["v1"]')
    assert store.get("alpha", "d1", 2) == (2, '["v2"]')
    assert store.get("alpha", "d1", 4) is None and store.get("alpha", "d1", 0) is None
    assert store.versions("alpha", "d1") == ['{"n": 1}', '{"n": 2}', '{"n": 3}']
    assert store.latest("alpha") == {"d1": (3, '{"n": 3}')}


def test_the_limits_hold_even_when_written_at_once(store: LexiconStore) -> None:
    assert all(store.create(v("alpha", f"d{i}"), 3) for i in range(3))
    assert not store.create(v("alpha", "d3"), 3)  # a fourth: refused
    assert store.get("alpha", "d3") is None and len(store.latest("alpha")) == 3
    store.delete("alpha", "d0")
    made: list[bool] = []
    threads = [
        threading.Thread(target=lambda n=n: made.append(store.create(v("alpha", n), 3)))
        for n in ("x", "y", "z", "w")
    ]
    numbers: list[int] = []
    threads += [
        threading.Thread(target=lambda: numbers.append(store.update(v("alpha", "d1"), 9)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made.count(True) == 1 and len(store.latest("alpha")) == 3
    assert sorted(numbers) == [2, 3, 4, 5]  # every update its own number


def test_an_update_after_a_version_is_refused_once_another_came_first(
    store: LexiconStore,
) -> None:
    assert store.create(v("alpha", "d1", "{}", '["v1"]'), 10)
    assert store.update(v("alpha", "d1", "{}", '["v2"]'), 10, after=1) == 2
    assert store.update(v("alpha", "d1", "{}", '["late"]'), 10, after=1) == -2  # v2 came first
    assert store.get("alpha", "d1") == (2, '["v2"]')
    assert store.update(v("alpha", "d1"), 10, after=7) == -2
    assert store.update(v("alpha", "nope"), 10, after=1) == 0

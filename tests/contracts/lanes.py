"""One contract, two Lanes: the Redis one (its Lua steps, on a redis-server of the test's own)
and the in-memory one the fast tier's fleet dispatches from. A job store's create fills a
tenant's lane; a move takes only the head it was shown, to the queue's head or tail; a
finalize pushed first is next; an emptied lane is forgotten; the lease has one holder."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.lanes import MemoryLanes, MemoryLease
from service.adapters.memory.queue import MemoryQueue
from service.domain.job import Job
from service.ports import NewJob
from service.ports.dispatch import Lanes, Lease
from tests.support.jobs import make_job


@dataclass
class Under:
    store: Any  # a job store: every role of it
    lanes: Lanes
    lease: Lease
    next: Callable[[], str]  # the message the next worker takes from the broker's queue


def _job(job_id: str, tenant: str, n: int = 2) -> Job:
    return make_job(job_id, tenant, 1.0, n=n)


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    if request.getfixturevalue("backend") == "memory":
        queue = MemoryQueue()
        lanes = MemoryLanes(queue)

        def first() -> str:
            return json.dumps({"task": queue.pending[0][0], "args": queue.pending[0][1]})

        return Under(MemoryJobStore(queue), lanes, MemoryLease(), first)
    from service.adapters.redis.jobstore import JobStore as RedisJobStore
    from service.adapters.redis.lanes import RedisLanes, RedisLease

    store = RedisJobStore.from_url(request.getfixturevalue("redis_url"), 2.0, 2.0)
    store.r.flushdb()
    redis_lanes = RedisLanes(store.r, "narrate")
    first = lambda: str(store.r.lindex("narrate", -1))  # noqa: E731
    return Under(store, redis_lanes, RedisLease(store.r), first)


def msg(u: Under, job_id: str, step: int | str) -> str:
    """A message as the lanes hand it back (the memory queue's held shape; Redis keeps any
    string as it is)."""
    name = "narrate.finalize" if step == "f" else "narrate.segment"
    return json.dumps({"task": name, "args": [job_id] if step == "f" else [job_id, step]})


def pushed(u: Under, message: str) -> str:
    """``message`` as it is pushed: the memory queue takes its own encode()'s shape."""
    if isinstance(u.lanes, MemoryLanes):
        return json.dumps([json.loads(message)["task"], json.loads(message)["args"]])
    return message


def create(u: Under, job_id: str, tenant: str) -> None:
    raw = [pushed(u, msg(u, job_id, i)) for i in range(2)]
    u.store.create(NewJob(_job(job_id, tenant), None, raw, u.lanes.lane(tenant)))


def test_a_create_fills_the_tenants_lane_in_order_and_lists_the_tenant(under: Under) -> None:
    create(under, "a1", "alpha")
    create(under, "a2", "alpha")
    create(under, "b1", "beta")
    assert under.lanes.heads() == {"alpha": msg(under, "a1", 0), "beta": msg(under, "b1", 0)}
    assert under.lanes.depths() == {"alpha": 4, "beta": 2} and under.lanes.depth() == 0
    assert len(under.lanes.waiting()) == 6


def test_a_move_takes_only_the_head_it_was_shown(under: Under) -> None:
    create(under, "a1", "alpha")
    assert not under.lanes.move("alpha", msg(under, "a1", 1), False)  # not the head
    assert under.lanes.move("alpha", msg(under, "a1", 0), False)
    assert not under.lanes.move("alpha", msg(under, "a1", 0), False)  # moved once only
    assert under.lanes.depth() == 1 and under.lanes.depths() == {"alpha": 1}
    assert under.next() == msg(under, "a1", 0)
    assert under.lanes.queued() == [json.loads(msg(under, "a1", 0))]  # what a taker adopts


def test_a_finalize_pushed_first_is_the_next_and_may_jump_the_queue(under: Under) -> None:
    create(under, "a1", "alpha")
    under.lanes.move("alpha", msg(under, "a1", 0), False)
    fin = msg(under, "a0", "f")
    under.lanes.push_first("alpha", pushed(under, fin))
    assert under.lanes.heads() == {"alpha": fin}
    assert under.lanes.move("alpha", fin, True)
    assert under.next() == fin  # ahead of a1's segment, which waited first


def test_an_emptied_lane_is_forgotten_and_comes_back_with_new_work(under: Under) -> None:
    create(under, "a1", "alpha")
    for i in range(2):
        assert under.lanes.move("alpha", msg(under, "a1", i), False)
    assert under.lanes.heads() == {} and under.lanes.depths() == {}
    create(under, "a2", "alpha")
    assert under.lanes.heads() == {"alpha": msg(under, "a2", 0)}


def test_the_lease_has_one_holder_until_released(under: Under) -> None:
    assert under.lease.acquire("one", 5) and under.lease.acquire("one", 5)  # renewed
    assert not under.lease.acquire("two", 5)
    under.lease.release("two")  # not the holder: nothing
    assert not under.lease.acquire("two", 5)
    under.lease.release("one")
    assert under.lease.acquire("two", 5)

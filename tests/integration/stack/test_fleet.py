"""Worker heartbeats on a real Redis: a dead worker's messages go back to the head of the
queue, once; an outage (Redis away, or this worker frozen) makes no live peer look dead."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import wiring
from service.adapters.redis.jobstore import JobStore
from service.cli.stack import redis_argv, wait_for_redis
from service.config import Settings
from service.jobs.fleet import FleetWatch
from tests.support.stack import free_port

DEAD_AFTER = 1.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[JobStore]:
    port = free_port()
    proc = subprocess.Popen(redis_argv(port, tmp_path), stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for_redis(url)
        found = wiring.build(Settings(redis_url=url, data_dir=tmp_path)).stores.records
        assert isinstance(found, JobStore)
        yield found
    finally:
        proc.kill()
        proc.wait()


def held_message(store: JobStore, tag: str) -> str:
    """A message as kombu records one it delivered: unacked hash and index."""
    message = {"body": "", "headers": {"task": "narrate.segment"}, "properties": {}}
    store.r.hset("unacked", tag, json.dumps([message, "", "narrate"]))
    store.r.zadd("unacked_index", {tag: time.time()})
    return tag


def test_a_dead_workers_messages_go_back_once_and_an_outage_kills_nobody(
    store: JobStore,
) -> None:
    a = FleetWatch(store, store, "narrate", "a@host", DEAD_AFTER)
    b = FleetWatch(store, store, "narrate", "b@host", DEAD_AFTER)
    b.instance = "b@host 2"  # another process
    tag = held_message(store, "tag-1")
    a.tick([])
    b.tick([tag])
    assert len(store.fleet(DEAD_AFTER).live) == 2
    time.sleep(DEAD_AFTER * 1.5)  # the outage: nobody beats (Redis away, or both frozen)
    assert a.tick([]) == 0  # a's own beats had a gap: it judges nobody on it
    assert store.r.hexists("unacked", tag) and store.r.llen("narrate") == 0
    deadline = time.monotonic() + 10
    while not store.r.llen("narrate"):  # b stays silent; a beats on, then hands b's back
        assert time.monotonic() < deadline
        a.tick([])
        time.sleep(0.1)
    assert not store.r.hexists("unacked", tag) and not store.r.zscore("unacked_index", tag)
    (back,) = store.r.lrange("narrate", 0, -1)
    assert json.loads(back)["headers"] == {"task": "narrate.segment", "redelivered": True}
    assert store.fleet(DEAD_AFTER).live == [a.instance]  # b is forgotten: handed back once
    assert a.tick([]) == 0 and store.r.llen("narrate") == 1


def test_a_restarted_worker_hands_back_what_its_earlier_run_held(store: JobStore) -> None:
    earlier = FleetWatch(store, store, "narrate", "w@host", DEAD_AFTER)
    earlier.instance = "w@host 1"
    earlier.tick([held_message(store, "tag-2")])
    FleetWatch(
        store, store, "narrate", "w@host", DEAD_AFTER
    ).start()  # at once, not after DEAD_AFTER
    assert store.r.llen("narrate") == 1 and not store.r.hexists("unacked", "tag-2")
    assert store.fleet(DEAD_AFTER).live == []


def test_a_message_nobody_holds_goes_back_once_and_a_held_one_stays(store: JobStore) -> None:
    """kombu's unacked hash keeps a step cancelled at a connection loss when its restore ran
    while Redis was away: no worker's beat names it. Old enough, it goes back to the head of
    the queue, once; one a worker names, or one just delivered, stays where it is."""
    held, orphan, young = (held_message(store, t) for t in ("tag-held", "tag-orphan", "tag-young"))
    old = time.time() - 60
    store.r.zadd("unacked_index", {held: old, orphan: old})
    a = FleetWatch(store, store, "narrate", "a@host", DEAD_AFTER)
    a.tick([held])
    assert store.hand_back_orphans("narrate", 30) == 1
    assert store.hand_back_orphans("narrate", 30) == 0  # once
    assert store.r.hexists("unacked", held) and store.r.hexists("unacked", young)
    assert not store.r.hexists("unacked", orphan) and not store.r.zscore("unacked_index", orphan)
    (back,) = store.r.lrange("narrate", 0, -1)
    assert json.loads(back)["headers"]["redelivered"] is True

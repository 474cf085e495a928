"""One contract, two batch event logs (BatchEvents): the Redis Stream with its one-script
``completed``, and the in-memory twin. Events come back in order after any id, and the
``completed`` event is written by exactly one of any number of calls."""

from __future__ import annotations

import pytest

from service.adapters.memory.batches import MemoryBatchEvents
from service.ports import BatchEvents


@pytest.fixture
def log(request: pytest.FixtureRequest) -> BatchEvents:
    if request.getfixturevalue("backend") == "memory":
        return MemoryBatchEvents()
    import redis

    from service.adapters.redis.batch_events import RedisBatchEvents

    client = redis.Redis.from_url(request.getfixturevalue("redis_url"), decode_responses=True)
    client.flushdb()
    return RedisBatchEvents(client)


def test_events_come_back_in_order_after_any_id_and_completed_is_written_once(
    log: BatchEvents,
) -> None:
    for i in range(3):
        log.publish("b1", "item", {"job": f"j{i}", "status": "succeeded"})
    log.publish("b2", "item", {"job": "other"})
    assert [log.complete("b1", {"counts": {"total": 3}}) for _ in range(3)] == [True, False, False]
    found = log.events("b1")
    assert [(e.event, e.data.get("job")) for e in found] == [
        ("item", "j0"), ("item", "j1"), ("item", "j2"), ("completed", None),
    ]  # fmt: skip
    assert found[-1].data == {"counts": {"total": 3}}
    assert [e.id for e in log.events("b1", found[1].id)] == [e.id for e in found[2:]]
    assert [e.data["job"] for e in log.events("b2")] == ["other"]
    assert log.events("nope") == []


def test_an_id_past_what_a_stream_can_hold_reads_from_the_start(log: BatchEvents) -> None:
    """A Last-Event-ID past 2^64 - 1 was never given; Redis refused it (the stream ended)."""
    log.publish("b1", "item", {"job": "j0"})
    for after in ("18446744073709551616-0", "0-18446744073709551616", "9" * 20 + "-1"):
        assert [e.data["job"] for e in log.events("b1", after)] == ["j0"], after

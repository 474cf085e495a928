"""kombu's restore of a channel's unacked messages, run after the connection is gone (as on
a connection loss mid-step): kombu fails in its own connection set-up with the round-four
AttributeError, which ended the worker's main process. Guarded (workers/restore_guard.py),
it is logged, the message stays in the unacked hash, and the orphan sweep hands it back."""

from __future__ import annotations

import logging

import kombu
import pytest
from kombu.transport import redis as kombu_redis

from service.adapters.redis.jobstore import JobStore
from workers.restore_guard import guarded


def delivered(url: str) -> tuple[kombu.Connection, object]:
    """A connection whose channel holds one delivered, unacked message of queue "narrate"."""
    conn = kombu.Connection(url)
    channel = conn.channel()
    queue = kombu.Queue("narrate", exchange=kombu.Exchange("narrate"), routing_key="narrate")
    conn.Producer(channel).publish(
        {"step": 1}, exchange=queue.exchange, routing_key="narrate", declare=[queue]
    )
    assert queue(channel).get(no_ack=False) is not None
    return conn, channel


def test_a_restore_after_the_connection_is_gone_is_logged_and_swept(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = JobStore.from_url(redis_url, 2.0, 2.0)
    store.r.flushdb()
    _conn, channel = delivered(redis_url)  # the connection kept open, as a worker keeps it
    qos = channel.qos  # type: ignore[attr-defined]
    # What a lost connection leaves: the channel's pool dropped, the transport's client gone.
    channel._pool = None  # type: ignore[attr-defined]
    channel.connection.client = None  # type: ignore[attr-defined]
    original = kombu_redis.QoS.restore_unacked
    with pytest.raises(AttributeError, match="hostname"):
        original(qos)  # kombu's own: the exception that reached the worker's main
    with caplog.at_level(logging.WARNING, logger="narrate.worker"):
        assert guarded(original)(qos) is None
    assert "the orphan sweep hands them back" in caplog.text
    assert store.r.hlen("unacked") == 1 and store.r.llen("narrate") == 0
    assert store.hand_back_orphans("narrate", 0) == 1  # nobody's beat names it
    assert store.r.hlen("unacked") == 0 and store.r.llen("narrate") == 1

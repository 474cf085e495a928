"""The fleet in Redis: each worker's heartbeat, and handing back at once the messages a dead
worker held (a mixin of the job store: same client, same timeouts).

Keys:
  narrate:workers        hash: worker instance ("<hostname> <pid>") -> last beat (Redis clock)
  narrate:workers:held   hash: worker instance -> JSON list of the delivery tags it holds
  narrate:workers:storage  hash: worker instance -> its storage's identity (Artifacts.identity)
  narrate:dispatcher, narrate:dispatcher:held   the dispatcher's lease (read: lanes.py)

kombu's Redis transport keeps each delivered, unacked message in the ``unacked`` hash (tag
-> [message, exchange, routing key]) and the ``unacked_index`` zset (tag -> when delivered),
and hands one back only once it is older than visibility_timeout (twice the hard time limit:
12 minutes by default). A dead worker's are handed back here as kombu's own restore does it,
in one transaction: removed from both, pushed where the next BRPOP takes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.keys import HELD, LEASE, STORAGE, WORKERS
from service.adapters.redis.lanes import LEASE_HELD
from service.domain.wire import JsonObject
from service.ports import Fleet

UNACKED, UNACKED_INDEX = "unacked", "unacked_index"  # kombu's Channel defaults


@store_errors
class FleetStore:
    """The job store's fleet methods (JobStore sets ``r`` and registers ``_beat``); each
    raises StoreUnavailable for a Redis error."""

    r: Any
    _beat: Any

    def beat(self, worker: str, held: Iterable[str]) -> None:
        self._beat(keys=[WORKERS, HELD], args=[worker, json.dumps(sorted(held))])

    def leave(self, worker: str) -> None:
        """A worker that stops cleanly (its tasks finished, kombu restored the rest)."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(WORKERS, worker)
        pipe.hdel(HELD, worker)
        pipe.hdel(STORAGE, worker)
        pipe.execute()

    def announce(self, worker: str, storage: str) -> None:
        self.r.hset(STORAGE, worker, storage)

    def fleet(self, dead_after: float) -> Fleet:
        """Every worker instance by its last beat, and the dispatcher lease's holder and
        when it was last held, on Redis's clock: one round trip, reads only (so a Redis that
        takes no writes for a moment still answers)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.time()
        pipe.hgetall(WORKERS)
        pipe.get(LEASE)
        pipe.get(LEASE + LEASE_HELD)
        pipe.hgetall(STORAGE)
        (seconds, micros), beats, holder, held, storages = pipe.execute()
        now = seconds + micros / 1e6
        live = sorted(w for w, beat in beats.items() if now - float(beat) <= dead_after)
        seen = None if held is None else max(0.0, now - float(held))
        said = {w: storages[w] for w in live if w in storages}
        return Fleet(live, sorted(set(beats) - set(live)), holder, seen, said)

    def hand_back(self, worker: str, queue: str, dead_after: float | None) -> int:
        """Put every message ``worker`` held back at the head of ``queue`` and forget the
        worker, in one transaction; nothing if it beat again within ``dead_after`` meanwhile
        (None: known dead, an earlier run of a worker that has started again). A message
        acked meanwhile is not there any more, so nothing runs twice for a dead worker.
        Returns how many messages went back."""

        def restore(pipe: Any) -> int:
            seconds, micros = pipe.time()
            beat = pipe.hget(WORKERS, worker)
            if beat is None or (
                dead_after is not None and seconds + micros / 1e6 - float(beat) <= dead_after
            ):
                return 0  # alive after all, or handed back by another meanwhile
            tags = json.loads(pipe.hget(HELD, worker) or "[]")
            held = [(tag, pipe.hget(UNACKED, tag)) for tag in tags]
            pipe.multi()
            pipe.hdel(WORKERS, worker)
            pipe.hdel(HELD, worker)
            pipe.hdel(STORAGE, worker)
            return _push_back(pipe, queue, held)

        return int(self.r.transaction(restore, WORKERS, HELD, UNACKED, value_from_callable=True))

    def hand_back_orphans(self, queue: str, older_than: float) -> int:
        """Put back at the head of ``queue`` every message kombu holds as delivered for over
        ``older_than`` s (its ``unacked_index``: the delivering worker's clock) that no
        worker's held list names, live or dead (a dead one's go back by ``hand_back``). A
        worker reports a message as it receives it, so a held one is named long before it is
        that old; a step cancelled at a connection loss, whose restore ran while Redis was
        away, is named by nobody and would wait for visibility_timeout. One transaction:
        a beat or an ack meanwhile starts it again."""
        seconds, micros = self.r.time()
        if not self.r.zrangebyscore(
            UNACKED_INDEX, "-inf", seconds + micros / 1e6 - older_than, 0, 1
        ):
            return 0  # the usual case: nothing delivered that long ago, no transaction

        def restore(pipe: Any) -> int:
            seconds, micros = pipe.time()
            old = pipe.zrangebyscore(UNACKED_INDEX, "-inf", seconds + micros / 1e6 - older_than)
            claimed = {tag for raw in pipe.hvals(HELD) for tag in json.loads(raw)}
            held = [(tag, pipe.hget(UNACKED, tag)) for tag in old if tag not in claimed]
            if not held:
                return 0
            pipe.multi()
            return _push_back(pipe, queue, held)

        return int(
            self.r.transaction(restore, HELD, UNACKED, UNACKED_INDEX, value_from_callable=True)
        )

    def broker_messages(self, queue: str) -> list[JsonObject]:
        """Every message the broker holds for ``queue``, waiting or delivered and unacked, in
        one atomic read (the whole queue: call it rarely)."""
        pipe = self.r.pipeline(transaction=True)
        pipe.lrange(queue, 0, -1)
        pipe.hvals(UNACKED)
        waiting, held = pipe.execute()
        return [json.loads(m) for m in waiting] + [json.loads(h)[0] for h in held]


def _push_back(pipe: Any, queue: str, held: list[tuple[str, str | None]]) -> int:
    """Queue each held message again (marked redelivered, as kombu's restore marks it) and
    drop it from kombu's unacked hash and index, in ``pipe``'s transaction; how many."""
    n = 0
    for tag, raw in held:
        if raw is None:
            continue  # acked, or rejected back to the queue, meanwhile
        message = json.loads(raw)[0]
        message["headers"]["redelivered"] = True
        message["properties"].setdefault("delivery_info", {})["redelivered"] = True
        pipe.hdel(UNACKED, tag)
        pipe.zrem(UNACKED_INDEX, tag)
        pipe.rpush(queue, json.dumps(message))
        n += 1
    return n

"""Which workers are alive, by their heartbeats in Redis, and what happens to the tasks a
dead one held: they go back to the queue at once, not after kombu's visibility_timeout
(kept at twice the hard time limit, so a long encode is never handed out twice)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable

from service.ports import FleetRegistry, QueueHeads

log = logging.getLogger("narrate.fleet")


def hand_back_dead(fleet: FleetRegistry, heads: QueueHeads, queue: str, dead_after: float) -> int:
    """Put the messages of every worker whose last beat is older than ``dead_after`` back
    on ``queue``; how many went back. Safe to run anywhere, any number of times at once:
    each worker's messages go back in one transaction, once."""
    n = 0
    for worker in fleet.fleet(dead_after).dead:
        n += _hand_back(heads, worker, queue, dead_after)
    return n


def _hand_back(heads: QueueHeads, worker: str, queue: str, dead_after: float | None) -> int:
    n = heads.hand_back(worker, queue, dead_after)
    if n:
        log.warning("worker %s is gone: %d task(s) it held are back in the queue", worker, n)
    return n


class FleetWatch:
    """One worker's side: its heartbeat (with the delivery tags it holds), and, on every
    beat, the hand-back of what dead peers held and of what nobody holds.

    A peer counts as dead only once this worker has itself beaten without a gap for
    ``dead_after``: after Redis was away (or this process was frozen), every peer's last
    beat looks old until it beats again, and none of them should be judged on that."""

    def __init__(
        self,
        fleet: FleetRegistry,
        heads: QueueHeads,
        queue: str,
        hostname: str,
        dead_after: float,
        clock: Callable[[], float] = time.monotonic,
        storage: str | None = None,
    ) -> None:
        self.fleet, self.heads = fleet, heads
        self.storage = storage  # where this worker publishes (Artifacts.identity), said at start
        self.queue = queue
        self.hostname = hostname
        self.instance = f"{hostname} {os.getpid()}"
        self.dead_after = dead_after
        self.clock = clock
        self._since = self._last = float("-inf")  # this run of unbroken beats: first, last

    def start(self) -> None:
        """An earlier run of this worker (same name, so not running any more: it was killed
        and restarted) held tasks that nobody will finish: hand them back now."""
        if self.storage is not None:
            self.fleet.announce(self.instance, self.storage)
        fleet = self.fleet.fleet(self.dead_after)
        for worker in fleet.live + fleet.dead:
            if worker.rsplit(" ", 1)[0] == self.hostname and worker != self.instance:
                _hand_back(self.heads, worker, self.queue, None)

    def tick(self, held: Iterable[str]) -> int:
        """Beat; then hand back what dead peers held, if this worker may judge yet."""
        self.fleet.beat(self.instance, held)
        now = self.clock()
        if now - self._last > self.dead_after / 2:
            self._since = now  # a gap of our own: the run of beats starts again
        self._last = now
        if now - self._since < self.dead_after:
            return 0
        return hand_back_dead(self.fleet, self.heads, self.queue, self.dead_after) + self._orphans()

    def _orphans(self) -> int:
        """Messages delivered over ``dead_after`` ago that no worker holds: a step cancelled
        when its worker lost Redis (a restart, a failover), its restore run while Redis was
        away. Only judged with this worker's own beats unbroken, like the dead: after an
        outage every worker beats its held list again before anything is called an orphan."""
        n = self.heads.hand_back_orphans(self.queue, self.dead_after)
        if n:
            log.warning("%d task(s) no worker holds (lost at a connection loss) are back", n)
        return n

    def stop(self) -> None:
        self.fleet.leave(self.instance)

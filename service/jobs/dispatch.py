"""The fair-share dispatcher: jobs wait in their tenant's lane (service/ports/dispatch.py),
and the dispatcher keeps only ``dispatch_window`` tasks waiting in the broker's queue,
refilling it one task at a time in deficit round robin over the tenants
(service/domain/fairshare.py), each weighted by its key's ``--weight``. One tenant's backlog
therefore delays another's job by about one task, not by the whole backlog.

Exactly one dispatcher works at a time, by a lease (every worker runs one, in its main
process; `narrate dispatch` runs one alone). Each move from a lane to the queue is one atomic
step, so a dispatcher killed anywhere loses and duplicates nothing; another takes the lease
over once it lapses. A tenant at its max-running gets no new job dispatched (its started
jobs' remaining steps still go)."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable

from service.config import Settings
from service.domain.errors import StoreUnavailable
from service.domain.fairshare import DeficitRoundRobin
from service.domain.job import JobStatus
from service.ports import JobRecords, Queue
from service.ports.dispatch import Lanes, Lease

log = logging.getLogger("narrate.dispatch")


class Dispatcher:
    def __init__(
        self,
        settings: Settings,
        lanes: Lanes,
        queue: Queue,
        store: JobRecords,
        limits: Callable[[str], dict[str, int]],
        running: Callable[[str], int],
    ) -> None:
        self.settings = settings
        self.lanes = lanes
        self.queue = queue
        self.store = store
        self.limits = limits  # the tenant's quotas and weight (QuotaGate.limits)
        self.running = running  # the tenant's running jobs (the quotas' count)
        self.drr = DeficitRoundRobin()
        # Per tenant: jobs whose first segment this dispatcher moved and that no worker has
        # started yet (they count as running: they will be, in a moment).
        self.starting: dict[str, set[str]] = {}

    def tick(self) -> int:
        """Top the broker's queue up to the window from the lanes, in fair order; how many
        tasks moved."""
        free = self.settings.dispatch_window - self.lanes.depth()
        moved = tries = 0
        while free > 0 and tries <= 2 * self.settings.dispatch_window:
            tries += 1  # a move refused (the head changed meanwhile) costs a try
            heads = self.lanes.heads()
            for tenant in set(self.drr.credit) - set(heads):
                self.drr.forget(tenant)
            ready: dict[str, int] = {}
            first: dict[str, bool] = {}
            for tenant, head in heads.items():
                sendable = self._sendable(tenant, head)
                if sendable is not None:
                    ready[tenant] = max(1, self.limits(tenant).get("weight", 1))
                    first[tenant] = sendable
            pick = self.drr.pick(ready)
            if pick is None:
                break
            if self.lanes.move(pick, heads[pick], first[pick]):
                moved += 1
                free -= 1
                self._moved(pick, heads[pick])
        return moved

    def _step(self, head: str) -> tuple[str, str] | None:
        try:
            return self.queue.step(json.loads(head))
        except (ValueError, TypeError, AttributeError):
            return None

    def _sendable(self, tenant: str, head: str) -> bool | None:
        """Whether the lane's head may go now: None (not yet: a new job, and the tenant is at
        its max-running), else whether it goes to the head of the queue (a finalize)."""
        step = self._step(head)
        if step is None:
            return False  # not a job step: let it through, the worker decides
        job_id, what = step
        if what == "finalize":
            return True
        if job_id in self.starting.get(tenant, ()) or self.store.status(job_id) != JobStatus.QUEUED:
            return False  # a started job's segment (or a gone job's: the worker drops it)
        starting = self.starting.setdefault(tenant, set())
        starting -= {j for j in starting if self.store.status(j) != JobStatus.QUEUED}
        if self.running(tenant) + len(starting) >= self.limits(tenant)["max_running"]:
            return None
        return False

    def adopt(self) -> None:
        """On taking the lease over: the new jobs' segments another dispatcher moved into the
        broker's queue, not yet started, count as starting (else a tenant at its max-running
        got one job more right after a takeover)."""
        self.starting.clear()
        for message in self.lanes.queued():
            step = self.queue.step(message)
            if step is None or step[1] == "finalize":
                continue
            job = self.store.get(step[0])
            if job is not None and job.status == JobStatus.QUEUED:
                self.starting.setdefault(job.tenant, set()).add(job.id)

    def _moved(self, tenant: str, head: str) -> None:
        step = self._step(head)
        if step is not None and step[1] != "finalize":
            self.starting.setdefault(tenant, set()).add(step[0])


class DispatchLoop:
    """The dispatcher under its lease: ticks every ``dispatch_interval`` while this holder
    has the lease, renews it every third of ``dispatch_lease``, and otherwise waits to take
    it over (when the holder dies, its lease lapses)."""

    def __init__(self, dispatcher: Dispatcher, lease: Lease, holder: str) -> None:
        self.dispatcher = dispatcher
        self.lease = lease
        self.holder = holder
        self.holding = False

    def run(self, stop: threading.Event) -> None:
        s = self.dispatcher.settings
        renew_at = 0.0
        while not stop.is_set():
            try:
                if time.monotonic() >= renew_at:
                    renew_at = time.monotonic() + s.dispatch_lease / 3
                    self._hold(self.lease.acquire(self.holder, s.dispatch_lease))
                if self.holding:
                    self.dispatcher.tick()
            except StoreUnavailable as exc:
                log.warning("dispatch paused: %s", exc)
                renew_at = 0.0
                self._hold(False)
                stop.wait(min(1.0, s.dispatch_lease / 3))
                continue
            stop.wait(s.dispatch_interval if self.holding else s.dispatch_lease / 3)
        with contextlib.suppress(StoreUnavailable):  # else it lapses by itself
            self.lease.release(self.holder)

    def _hold(self, holding: bool) -> None:
        if holding != self.holding:
            log.info("%s %s the dispatch lease", self.holder, "holds" if holding else "lost")
            if holding:
                self.dispatcher.adopt()  # what another moved meanwhile
            else:
                self.dispatcher.starting.clear()
        self.holding = holding

"""`narrate reconcile`: the periodic sweep that bounds every job's time to a terminal state,
and requeues the steps the broker lost (never one that is only waiting its turn)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from service import logs
from service.config import Settings
from service.domain.job_changes import JobUpdate
from service.domain.notices import Notice
from service.jobs.lifecycle import Lifecycle
from service.jobs.retention import Sweeper
from service.ports import (
    FINALIZE_TASK,
    SEGMENT_TASK,
    ActiveJobs,
    JobRecords,
    JobTransitions,
    Queue,
    QueueHeads,
    SegmentLedger,
)
from service.ports.dispatch import Lanes

log = logging.getLogger("narrate.reconciler")
RECHECK = 0.5  # seconds between the two looks before a step counts as lost


@dataclass(frozen=True, slots=True)
class ReconciledJobs:
    """The job store's roles the reconciler works through."""

    records: JobRecords
    active: ActiveJobs
    ledger: SegmentLedger
    transitions: JobTransitions
    heads: QueueHeads  # what the broker holds, delivered or not


@dataclass(slots=True)
class Reconciler:
    settings: Settings
    jobs: ReconciledJobs
    queue: Queue
    lifecycle: Lifecycle
    sweeper: Sweeper
    lanes: Lanes | None = None  # fair share: steps also wait in the tenants' lanes
    # when the broker's messages were last read in full
    _looked: float = field(default=float("-inf"), init=False)
    swept_at: float = field(default=0.0, init=False)  # monotonic (0: no sweep yet)

    def reconcile(self, now: float | None = None) -> dict[str, int]:
        """Give every job a bounded time to a terminal state.

        A job running for longer than ``job_timeout`` since its first step started fails
        ("timed out"). A job only waiting its turn is left alone however long the backlog (a
        day's batch waits hours, and that is no failure): its message is in the queue. (The
        tasks a dead worker held, the live workers hand back, service/jobs/fleet.py; a task
        past the hard time limit Celery itself requeues.) A job that has not moved for
        ``visibility_timeout`` and has a step with no message anywhere (neither waiting nor
        delivered, at two looks) gets that step enqueued again; the broker's messages are
        read in full at most every half visibility_timeout."""
        now = time.time() if now is None else now
        counts = {"timed_out": 0, "requeued": 0}
        stale: list[str] = []
        for job_id in self.jobs.active.active():
            job = self.jobs.records.get(job_id)
            if job is None or job.terminal:
                self.jobs.active.forget_active(job_id)
            elif now - (job.started or now) > self.settings.job_timeout:
                said = f"timed out: not finished within {self.settings.job_timeout:g} s"
                self.lifecycle.fail(job, Notice(code="timeout", message=said))
                counts["timed_out"] += 1
            elif now - job.updated > self.settings.visibility_timeout:
                stale.append(job_id)
        if stale and now - self._looked >= self.settings.visibility_timeout / 2:
            self._looked = now
            for job_id, steps in self._lost(stale).items():
                self._requeue(job_id, steps, now)
                counts["requeued"] += 1
        return counts

    def _lost(self, job_ids: list[str]) -> dict[str, list[str]]:
        """The steps of these jobs that no message stands for. Looked at twice: a worker
        takes a message off the queue and records it as unacked in two steps."""
        lost: dict[str, list[str]] = {}
        for look in range(2):
            if look:
                time.sleep(RECHECK)
            held = self._held()
            lost = {}
            for job_id in job_ids:  # read after the broker: a step acked meanwhile is done
                steps = [s for s in self._pending(job_id) if (job_id, s) not in held]
                if steps:
                    lost[job_id] = steps
            if not lost:
                break
            job_ids = list(lost)
        return lost

    def _held(self) -> set[tuple[str, str] | None]:
        """The steps a message stands for: in a lane (read first: a message the dispatcher
        moves meanwhile is then seen in the broker), waiting in the broker or delivered."""
        waiting = self.lanes.waiting() if self.lanes is not None else []
        waiting += self.jobs.heads.broker_messages(self.queue.name)
        return {self.queue.step(m) for m in waiting}

    def _pending(self, job_id: str) -> list[str]:
        """The steps a job still needs: its unfinished segments, else finalize."""
        job = self.jobs.records.get(job_id)
        if job is None or job.terminal:
            return []
        done = self.jobs.ledger.done_segments(job_id)
        return [f"segment:{i}" for i in range(job.segments_total) if i not in done] or ["finalize"]

    def _requeue(self, job_id: str, steps: list[str], now: float) -> None:
        for step in steps:
            if step == "finalize":
                self.queue.send(FINALIZE_TASK, [job_id])
            else:
                self.queue.send(SEGMENT_TASK, [job_id, int(step.split(":")[1])])
        self.jobs.transitions.update(job_id, JobUpdate(requeued=now))
        log.warning("job %s: no message for %s: requeued", job_id, ", ".join(steps))

    def sweep_if_due(self) -> dict[str, int] | None:
        """The retention sweep (service/jobs/retention.py), every ``sweep_interval``."""
        if self.swept_at and time.monotonic() - self.swept_at < self.settings.sweep_interval:
            return None
        self.swept_at = time.monotonic()
        return self.sweeper.sweep().as_dict()

    def run_forever(self, interval: float) -> None:
        logs.configure(self.settings.log_format, prefix="reconciler ")
        while True:
            try:
                counts = self.reconcile()
                if any(counts.values()):
                    log.info("%s", counts)
            except Exception:  # Redis down: try again next round
                log.exception("reconcile failed")
            try:
                swept = self.sweep_if_due()
                if swept and any(swept.values()):
                    log.info("swept %s", swept)
            except Exception:
                log.exception("sweep failed")
            time.sleep(interval)

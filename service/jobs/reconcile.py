"""`narrate reconcile`: the periodic sweep that bounds every job's time to a terminal state,
and requeues the steps a crash lost."""

from __future__ import annotations

import logging
import time

from service.adapters.jobstore import JobStore
from service.adapters.queue import FINALIZE_TASK, SEGMENT_TASK
from service.config import Settings
from service.domain.job import Job
from service.jobs.lifecycle import Lifecycle
from service.jobs.retention import Sweeper
from service.ports import Queue

log = logging.getLogger("narrate.reconciler")


class Reconciler:
    def __init__(
        self, settings: Settings, store: JobStore, queue: Queue, lifecycle: Lifecycle
    ) -> None:
        self.settings = settings
        self.store = store
        self.queue = queue
        self.lifecycle = lifecycle
        self.sweeper = Sweeper(settings, store, lifecycle.storage)
        self.swept_at = 0.0  # monotonic time of the last sweep (0: none yet)

    def reconcile(self, now: float | None = None) -> dict[str, int]:
        """Give every job a bounded time to a terminal state, and requeue what a crash lost.

        A job older than ``job_timeout`` fails ("timed out"). A queued or running job that has
        not moved for ``visibility_timeout`` (by then the broker would have redelivered any
        task still held, and the hard time limit has killed any task still running) gets its
        missing steps enqueued again; the steps are idempotent, so a duplicate is harmless."""
        now = time.time() if now is None else now
        counts = {"timed_out": 0, "requeued": 0}
        for job_id in self.store.active():
            job = self.store.get(job_id)
            if job is None or job.terminal:
                self.store.forget_active(job_id)
            elif now - job.created > self.settings.job_timeout:
                timeout = self.settings.job_timeout
                self.lifecycle.fail(job, f"timed out: not finished within {timeout:g} s")
                counts["timed_out"] += 1
            elif now - job.updated > self.settings.visibility_timeout:
                self._requeue(job, now)
                counts["requeued"] += 1
        return counts

    def _requeue(self, job: Job, now: float) -> None:
        done = self.store.done_segments(job.id)
        missing = [i for i in range(job.segments_total) if i not in done]
        for i in missing:
            self.queue.send(SEGMENT_TASK, [job.id, i])
        if not missing:
            self.queue.send(FINALIZE_TASK, [job.id])
        self.store.update(job.id, requeued=now)
        log.warning(
            "job %s stalled since %.0f s: requeued %s",
            job.id,
            now - job.updated,
            missing or "finalize",
        )

    def sweep_if_due(self) -> dict[str, int] | None:
        """The retention sweep (service/jobs/retention.py), every ``sweep_interval``."""
        if self.swept_at and time.monotonic() - self.swept_at < self.settings.sweep_interval:
            return None
        self.swept_at = time.monotonic()
        return self.sweeper.sweep().as_dict()

    def run_forever(self, interval: float) -> None:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s reconciler %(message)s")
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

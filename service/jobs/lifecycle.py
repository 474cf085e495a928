"""What every side does to a job that ends badly: fail it with a message fit for the
client, and remove the files it no longer needs."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.config import Settings
from service.domain.errors import CanceledError, StorageUnavailable, StoreUnavailable
from service.domain.job import UNSUCCESSFUL, Job, JobStatus
from service.domain.job_changes import Transition
from service.domain.notices import Notice
from service.ports import JobFiles, JobRecords, JobTransitions

if TYPE_CHECKING:
    from service.jobs.batch_progress import BatchProgress
    from service.jobs.webhooks import Webhooks

log = logging.getLogger("narrate.jobs")


@dataclass(slots=True)
class Lifecycle:
    """A job's end on the job store's records and ``transitions``, its files in
    ``storage``; its events to ``webhooks`` and, for a batch item, to its batch's stream
    (``batches``)."""

    settings: Settings
    store: JobRecords
    transitions: JobTransitions
    storage: JobFiles
    webhooks: Webhooks | None = None
    batches: BatchProgress | None = None

    def ended(self, job_id: str, retry: bool = True, settle_batch: bool = True) -> None:
        """The job just reached its end (this call moved it): its webhooks' event goes to the
        outbox now, written from the record as stored, and its batch hears of it (the last
        item ends the batch). An unreachable store raises StoreUnavailable when ``retry``: a
        worker's step is then handed back, and its redelivery, finding the job ended, writes
        the events (steps.py ``_admit``). ``settle_batch`` False: the item's event only, its
        batch settled by the caller (``settle``), once for many items."""
        if self.webhooks is None and self.batches is None:
            return
        try:
            job = self.store.get(job_id)
        except StoreUnavailable:
            if retry:
                raise
            log.warning("job %s: its webhooks' event not written (store unavailable)", job_id)
            return
        if job is None or not job.terminal:
            return
        if self.webhooks is not None:
            self.webhooks.notify_safely(job, f"job.{job.status}", retry=retry)
        if self.batches is not None and job.batch:
            ended = self.batches.ended if settle_batch else self.batches.item_ended
            self._safely(ended, job, retry)

    def settle(self, batch_id: str) -> None:
        """The batch's ``completed`` event and webhook if every item has ended."""
        if self.batches is not None:
            try:
                self.batches.settle(batch_id)
            except Exception:
                log.exception("batch %s: its completion not written", batch_id)

    def stage(self, job: Job, stage: str) -> None:
        """A stage began (opt-in ``job.progress``; sent once per stage, however many steps
        report it; a batch item's on its batch's stream)."""
        if self.webhooks is not None:
            self.webhooks.notify_safely(job, "job.progress", stage, retry=False)
        if self.batches is not None and job.batch:
            self._safely(lambda j: self.batches.stage(j, stage) if self.batches else None, job)

    @staticmethod
    def _safely(call: Callable[[Job], None], job: Job, retry: bool = False) -> None:
        """A job's end is not undone by its batch's events (StoreUnavailable raised when
        ``retry``: the step runs again)."""
        try:
            call(job)
        except StoreUnavailable:
            if retry:
                raise
            log.exception("job %s: its batch's events not written", job.id)
        except Exception:
            log.exception("job %s: its batch's events not written", job.id)

    def redact_paths(self, message: str) -> str:
        """A message fit for the client: no absolute server path (ffprobe and ffmpeg name the
        files they read), only what the client itself sent or can see."""
        roots = {str(self.settings.data_dir), str(self.settings.data_dir.resolve())}
        for root in sorted(roots, key=len, reverse=True):
            message = re.sub(re.escape(root) + r"[^\s:'\"]*", "the upload", message)
        return message

    def fail(self, job: Job, reason: Notice) -> None:
        reason = reason.model_copy(update={"message": self.redact_paths(reason.message)})
        # Intermediate files go first: a client that sees "failed" finds none of them.
        self._tidy(self.storage.clear_work, job)
        if self.transitions.advance(job.id, Transition(JobStatus.FAILED, error=reason)):
            log.warning("job %s failed: %s (%s)", job.id, reason.message, reason.code)
            self.ended(job.id)
        self.discard_work(job)

    def discard_work(self, job: Job) -> None:
        """Remove a job's intermediate files (segment audio, the staging directories of
        finalize runs that were killed); artifacts stay. A failed or canceled job keeps
        nothing at all: no artifacts, no upload, no empty folders; nor does a job deleted
        while a step ran (the step wrote its files after the delete removed the rest)."""
        if self.store.status(job.id) in (*UNSUCCESSFUL, None):
            self._tidy(self.storage.delete, job)
        else:
            self._tidy(self.storage.clear_work, job)

    def _tidy(self, remove: Callable[[str, str], None], job: Job) -> None:
        """Remove files; an unreachable store leaves them (a later delete takes them) rather
        than keep the job from ending."""
        try:
            remove(job.tenant, job.id)
        except StorageUnavailable as exc:
            log.warning("job %s: files left in storage: %s", job.id, exc)

    def tidy_if_gone(self, job: Job) -> None:
        """After a step raised: if its job was deleted meanwhile, remove what the step wrote
        (best effort: the step's own error is the one to report)."""
        try:
            if self.store.status(job.id) is None:
                self._tidy(self.storage.delete, job)
        except Exception as exc:
            log.warning("job %s: files of a deleted job left: %s", job.id, exc)

    def check_canceled(self, job_id: str) -> None:
        """Stop work on a job that was canceled, failed by another step, or deleted
        meanwhile."""
        if self.store.status(job_id) in (*UNSUCCESSFUL, None):
            raise CanceledError("the job was canceled")

"""Retention: the sweep that removes what no exit path could (a process killed mid-upload
leaves a partial file; nothing else ever ends a finished job's record). Finished jobs go
``keep_jobs_days`` after they ended, with their files, keys and listing entries; files no job
owns go ``keep_uploads_days`` after they last changed; keys and listing entries of jobs whose
record is gone go at once. The reconciler runs it every ``sweep_interval``; `narrate gc`
runs it once."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass

from service.config import Settings
from service.domain.errors import StorageUnavailable
from service.ports import JobFiles, JobRecords, JobSweep, Stored

log = logging.getLogger("narrate.retention")
DAY = 86400.0


@dataclass
class Swept:
    """What one sweep removed (or, dry, would remove)."""

    jobs: int = 0  # finished jobs past keep_jobs_days: record, files, keys
    orphans: int = 0  # file sets no job owns, past keep_uploads_days
    keys: int = 0  # Redis keys and listing entries of jobs whose record is gone
    bytes: int = 0  # of files, over jobs and orphans

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class Sweeper:
    def __init__(
        self, settings: Settings, store: JobRecords, sweep: JobSweep, storage: JobFiles
    ) -> None:
        self.settings = settings
        self.store = store
        self.keys = sweep  # the store's side: old jobs, stray keys
        self.storage = storage

    def sweep(self, now: float | None = None, dry_run: bool = False) -> Swept:
        now = time.time() if now is None else now
        swept = Swept()
        stored = {s.job_id: s for s in self.storage.stored()}
        self._finished(now - self.settings.keep_jobs_days * DAY, stored, swept, dry_run)
        self._orphans(now - self.settings.keep_uploads_days * DAY, stored, swept, dry_run)
        keys, entries = self.keys.strays()
        swept.keys = len(keys) + len(entries)
        if not dry_run and swept.keys:
            self.keys.remove(keys, entries)
        return swept

    def _finished(
        self, cutoff: float, stored: dict[str, Stored], swept: Swept, dry_run: bool
    ) -> None:
        """Jobs that ended before ``cutoff`` (only those created before it can have)."""
        for _, job_id in self.keys.created_before(cutoff):
            job = self.store.get(job_id)
            if job is None or not job.terminal or job.updated >= cutoff:
                continue
            files = stored.pop(job_id, None)
            if not dry_run:
                if not self._delete(job.tenant, job.id):
                    continue
                self.store.discard(job)
            swept.jobs += 1
            swept.bytes += files.size if files else 0

    def _orphans(
        self, cutoff: float, stored: dict[str, Stored], swept: Swept, dry_run: bool
    ) -> None:
        """Files of job ids with no record, untouched since ``cutoff``: an upload still
        streaming in (its job not made yet) keeps changing, so it is never taken."""
        owned = self.keys.existing(stored)
        for s in stored.values():
            if s.job_id in owned or s.modified >= cutoff:
                continue
            if not dry_run and not self._delete(s.tenant, s.job_id):
                continue
            swept.orphans += 1
            swept.bytes += s.size

    def _delete(self, tenant: str, job_id: str) -> bool:
        try:
            self.storage.delete(tenant, job_id)
            return True
        except StorageUnavailable as exc:  # the next sweep takes them
            log.warning("job %s: files left in storage: %s", job_id, exc)
            return False

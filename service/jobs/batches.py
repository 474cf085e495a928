"""Batches: many jobs validated together at the door and stored as ordinary jobs carrying
the batch's id, with a batch record (its items' names and job ids) to follow them by."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from service.domain.batch import (
    Batch,
    BatchItem,
    ItemsInvalid,
    ProblemData,
    Refused,
    by_file,
    item_problems,
)
from service.domain.errors import InputError, Problem
from service.domain.job import Job
from service.domain.spec import JobSpec, RenderOptions
from service.jobs.quotas import check_batch_size
from service.jobs.service import JobService, Submission
from service.ports import Artifact, BatchStore

log = logging.getLogger("narrate.jobs")
PLANNERS = 4  # items of a batch planned at once


@dataclass
class ItemRequest:
    """One item as the door parsed it: ready to plan, or already refused (``problems``)."""

    name: str
    job_id: str
    spec: JobSpec | None = None
    options: RenderOptions | None = None
    video: Path | None = None
    music: Path | None = None
    problems: list[Problem] = field(default_factory=list)
    takes: dict[str, Path] = field(default_factory=dict)  # take-2 / take -> its upload
    take_files: dict[str, str] = field(default_factory=dict)  # take-2 -> intro.take-2.wav


def problem_data(p: Problem) -> ProblemData:
    return {"code": p.code, "msg": p.message, "loc": list(p.loc)}


class BatchService:
    def __init__(self, jobs: JobService, store: BatchStore) -> None:
        self.jobs = jobs
        self.store = store
        self.settings = jobs.settings

    def max_items(self, tenant: str) -> int:
        """The tenant's max batch items: its key's --max-batch-items, else the setting."""
        if self.jobs.quotas is not None:
            return self.jobs.quotas.limits(tenant)["max_batch_items"]
        return self.settings.batch_max_items

    def check_size(self, tenant: str, n: int) -> None:
        check_batch_size(tenant, n, self.max_items(tenant))

    def submit(
        self,
        tenant: str,
        batch_id: str,
        items: list[ItemRequest],
        partial: bool = False,
        idem: tuple[str, str] | None = None,
    ) -> tuple[Batch, bool]:
        """Plan every item, then store the batch and its jobs; any item refused refuses the
        whole batch (ItemsInvalid, nothing stored) unless ``partial``: then the good ones are
        stored and the refused listed. False: an Idempotency-Key replay (that batch)."""
        self.check_size(tenant, len(items))
        # its items count as queued jobs from here until stored; itself one submission
        with self.jobs.admitted(tenant, len(items)):
            return self._submit(tenant, batch_id, items, partial, idem)

    def _submit(
        self,
        tenant: str,
        batch_id: str,
        items: list[ItemRequest],
        partial: bool,
        idem: tuple[str, str] | None,
    ) -> tuple[Batch, bool]:
        ready: list[tuple[str, Job]] = []
        problems: list[Problem] = []
        refused: list[Refused] = []
        # Planned a few at a time (ffprobe waits on its subprocess): no job runs until all are.
        with ThreadPoolExecutor(min(PLANNERS, len(items)), "plan") as pool:
            planned = list(
                pool.map(lambda a: self._prepare(tenant, batch_id, *a), enumerate(items))
            )
        for item, outcome in zip(items, planned, strict=True):
            if isinstance(outcome, Job):
                ready.append((item.name, outcome))
                continue
            problems += outcome
            refused.append({"name": item.name, "detail": [problem_data(p) for p in outcome]})
        if problems and (not partial or not ready):
            raise ItemsInvalid(problems)
        items_out = [BatchItem(name, job.id) for name, job in ready]
        batch = Batch(batch_id, tenant, time.time(), items_out, refused)
        stored, new = self.store.create(batch, idem)
        if not new:
            return stored, False
        self._store_jobs(batch, [job for _, job in ready], idem)
        return batch, True

    def _prepare(
        self, tenant: str, batch_id: str, i: int, item: ItemRequest
    ) -> Job | list[Problem]:
        """The item's job, planned, or its problems."""
        if item.problems or item.spec is None or item.options is None:
            return item.problems
        try:
            return self.jobs.prepare(
                Submission(
                    tenant, item.job_id, item.spec, item.options, item.video, item.takes,
                    item.music, batch=batch_id,
                )
            )  # fmt: skip
        except InputError as exc:  # a take's named by its file, as the batch got it
            return item_problems(i, item.name, by_file(exc, item.take_files))

    def _store_jobs(self, batch: Batch, jobs: list[Job], idem: tuple[str, str] | None) -> None:
        """Every job, or (the store failing midway) none of them and no batch."""
        stored: list[Job] = []
        try:
            for job in jobs:
                self.jobs.store_job(job)
                stored.append(job)
        except BaseException:
            log.warning("batch %s: not stored whole; removing its %d jobs", batch.id, len(stored))
            for job in stored:
                self.jobs.store.records.discard(job)  # its queued tasks find no job and do nothing
            self.store.discard(batch, idem[0] if idem else None)
            raise

    # -- read ------------------------------------------------------------------------------
    def owned(self, batch_id: str, tenant: str) -> Batch | None:
        ok = batch_id.isalnum() and len(batch_id) <= 64
        batch = self.store.get(batch_id) if ok else None
        return batch if batch is not None and batch.tenant == tenant else None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Batch], str | None]:
        return self.store.page(tenant, limit, cursor)

    def jobs_of(self, batch: Batch) -> list[tuple[BatchItem, Job | None]]:
        """Each item with its job (None: deleted since)."""
        found = self.jobs.store.records.get_many(
            [item.job for item in batch.items]
        )  # one round trip
        return list(zip(batch.items, found, strict=True))

    def cancel(self, batch: Batch) -> int:
        """Cancel every unfinished item; a finished one stays, artifacts and all, and so does
        one that ends while the cancel runs (its cancel refused: never a delete). The items
        are read once and the batch settled once (its ``completed`` event): each cancel used
        to read every item again, and a refused one fell through to deleting the job."""
        n = self.jobs.cancel_many([job for _, job in self.jobs_of(batch) if job is not None])
        self.jobs.lifecycle.settle(batch.id)
        return n

    def artifacts(self, batch: Batch) -> Iterator[tuple[str, Artifact]]:
        """``<name>/<file>`` and the artifact, for every published file of every item, read
        as the caller iterates (the zip streams them one by one)."""
        for item, job in self.jobs_of(batch):
            if job is None:
                continue
            for name in job.artifacts:
                found = self.jobs.artifact(job, name)
                if found is not None:
                    yield f"{item.name}/{name}", found

"""The application service the API talks to: submit a job, read jobs, cancel or delete one,
serve its artifacts, and report readiness and metrics. It never renders anything."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from service.config import Settings
from service.domain.backlog import Backlog
from service.domain.errors import QueueUnavailable, StoreUnavailable
from service.domain.job import Job, JobFilter, JobStatus
from service.domain.job_changes import Transition
from service.domain.lexicons import UsedLexicon
from service.domain.notices import Notice
from service.domain.spec import JobSpec, RenderOptions
from service.domain.voices import Voice
from service.jobs.keys import KeyStore
from service.jobs.lexicons import Lexicons
from service.jobs.lifecycle import Lifecycle
from service.jobs.presets import Presets
from service.jobs.quotas import QuotaGate
from service.jobs.webhooks import Webhooks
from service.pipeline import Pipeline, is_artifact
from service.ports import (
    SEGMENT_TASK,
    Artifact,
    Artifacts,
    Counts,
    EventLog,
    FleetRegistry,
    Incoming,
    JobEvent,
    JobFiles,
    JobRecords,
    JobTransitions,
    Metrics,
    NewJob,
    Queue,
    Workspace,
)
from service.ports.dispatch import Lanes

log = logging.getLogger("narrate.jobs")
CANCELED = Transition(
    JobStatus.CANCELED, error=Notice(code="canceled", message="canceled by the user")
)


@dataclass(frozen=True, slots=True)
class Figures:
    """What /metrics reports, read from Redis at scrape time (a few calls, none a scan)."""

    jobs_by_state: dict[str, int]
    queue_depth: int
    stage_histograms: dict[str, dict[str, float]]
    tts_calls: dict[str, int]
    tenant_jobs: dict[tuple[str, str], int]  # (tenant, queued|running) -> jobs
    tenant_depths: dict[str, int]  # tasks waiting in each tenant's lane (fair share)
    tenant_waits: dict[str, dict[str, float]]  # submit to first segment start, per tenant
    backlog: dict[str, Backlog]  # per queue: tasks waiting (lanes + queue) and running


@dataclass(frozen=True, slots=True)
class Submission:
    """A job as asked for: the tenant's, its id, the script and options, its uploads (local
    paths: the video, the music, recorded takes by part name), and the job it re-renders
    (``parent``) or the batch it is an item of."""

    tenant: str
    job_id: str
    spec: JobSpec
    options: RenderOptions
    video: Path | None = None
    takes: dict[str, Path] = field(default_factory=dict)  # part name -> its upload
    music: Path | None = None
    parent: str | None = None
    batch: str | None = None


@dataclass(frozen=True, slots=True)
class ServedJobs:
    """The job store's roles the API works through, and /metrics' figures."""

    records: JobRecords
    transitions: JobTransitions
    events: EventLog
    fleet: FleetRegistry  # the workers' heartbeats (/readyz)
    metrics: Metrics
    counts: Counts


def no_lexicons() -> Lexicons:
    return Lexicons(None)


@dataclass
class JobService:
    """The job store's roles (``store``), the jobs' files and ``artifacts``, the pipeline's
    door, the queue (or the tenants' ``lanes``: fair share), and what a submission is
    checked against: presets, quotas, lexicons, and the tenants' ``keys``."""

    settings: Settings
    store: ServedJobs
    files: JobFiles  # the jobs' uploads and work files
    artifacts: Artifacts  # what they publish, served from here
    pipeline: Pipeline
    queue: Queue
    lifecycle: Lifecycle
    presets: Presets
    quotas: QuotaGate | None = None
    lanes: Lanes | None = None  # None: no fair share, tasks go straight to the queue
    lexicons: Lexicons = field(default_factory=no_lexicons)
    keys: KeyStore | None = None  # the tenants' keys the API signs callers in with
    # The workers last seen on another storage (/readyz).
    _elsewhere: list[str] = field(default_factory=list, init=False)

    @property
    def webhooks(self) -> Webhooks | None:
        return self.lifecycle.webhooks

    def new_id(self) -> str:
        return uuid.uuid4().hex

    def redact_paths(self, message: str) -> str:
        return self.lifecycle.redact_paths(message)

    # -- submit ----------------------------------------------------------------------------
    def receive(self, tenant: str, job_id: str, kind: str) -> Incoming:
        """Where an uploaded ``video`` or ``music`` goes while the request streams in."""
        return self.files.receive(tenant, job_id, kind)

    def copy_input(self, tenant: str, source_job: str, job_id: str, kind: str) -> bool:
        return self.files.copy_input(tenant, source_job, job_id, kind)

    def workspace(self, tenant: str, job_id: str) -> Workspace:
        """The job's files on this machine (its inputs, to check them at the door)."""
        return self.files.workspace(tenant, job_id)

    def drop_upload(self, tenant: str, job_id: str) -> None:
        """Remove what a request that made no new job left behind."""
        self.files.delete(tenant, job_id)

    def submit(self, ask: Submission, idem: tuple[str, str] | None = None) -> tuple[Job, bool]:
        """Validate at the door, then store the record and one task per segment in one
        atomic step. Returns the job and whether it is new (False: an Idempotency-Key replay).

        QueueUnavailable means nothing was kept and nothing will run: the store's script
        refuses to run later than half the socket timeout after it was sent (by Redis's
        clock), so a call that timed out on a hung Redis cannot take effect when it resumes.
        QuotaExceeded (before anything is planned) when the tenant is at one of its limits."""
        with self.admitted(ask.tenant):
            return self.store_job(self.prepare(ask), idem)

    def admitted(self, tenant: str, jobs: int = 1) -> AbstractContextManager[None]:
        """QuotaExceeded unless ``tenant`` may submit ``jobs`` new jobs (one submission);
        inside, they count as queued until stored (quotas.py ``admitted``)."""
        return self.quotas.admitted(tenant, jobs) if self.quotas is not None else nullcontext()

    def prepare(self, ask: Submission) -> Job:
        """The job's record, validated and planned (InputError names what is wrong); nothing
        is stored yet."""
        tenant = ask.tenant
        options = self.presets.resolve(tenant, ask.options)  # once: the job keeps the values
        kept = self._kept_lexicons(tenant, ask.parent)
        options, lexicons = self.lexicons.resolve(tenant, options, kept)  # and the versions
        if options.webhook_url and self.webhooks is not None:
            self.webhooks.check_job_url(tenant, options.webhook_url)
        plan = self.pipeline.door.plan(ask.spec, options, ask.video, ask.takes, lexicons)
        if ask.music is not None:
            self.pipeline.door.check_music(ask.music)
        now = time.time()
        return Job(
            id=ask.job_id,
            tenant=tenant,
            status=JobStatus.QUEUED,
            created=now,
            updated=now,
            planned=plan,
            has_video=ask.video is not None,
            segments_total=len(plan.spec.segments),
            warnings=plan.warnings,
            parent=ask.parent,
            has_music=ask.music is not None,
            batch=ask.batch,
        )

    def _kept_lexicons(self, tenant: str, parent: str | None) -> list[UsedLexicon]:
        """The dictionaries a re-render's parent was planned with: the same versions read the
        same even after a dictionary is deleted."""
        job = self.owned(parent, tenant) if parent else None
        if job is None:
            return []
        return list(job.plan.lexicons)

    def store_job(self, job: Job, idem: tuple[str, str] | None = None) -> tuple[Job, bool]:
        """Store a prepared job with one task per segment, in one atomic step (into the
        tenant's lane with fair share, else the queue)."""
        messages = [self.queue.encode(SEGMENT_TASK, [job.id, i]) for i in range(job.segments_total)]
        to = self.lanes.lane(job.tenant) if self.lanes is not None else self.queue.name
        new = NewJob(job, idem, messages, to, budget=self.settings.redis_timeout / 2)
        try:
            return self.store.records.create(new)
        except StoreUnavailable as exc:
            log.warning("job %s not stored: %s", job.id, exc)
            raise QueueUnavailable(f"the job was not stored: {exc}") from exc

    # -- read ------------------------------------------------------------------------------
    def owned(self, job_id: str, tenant: str) -> Job | None:
        """The job, if it exists and belongs to ``tenant`` (another's does not exist for you)."""
        job = self.store.records.get(job_id) if job_id.isalnum() and len(job_id) <= 64 else None
        return job if job is not None and job.tenant == tenant else None

    def events(self, job_id: str, after: str = "0-0") -> list[JobEvent]:
        """The job's change events after id ``after`` (GET /v1/jobs/{id}/events)."""
        return self.store.events.events(job_id, after)

    def batch_events(self, batch_id: str, after: str = "0-0") -> list[JobEvent]:
        """A batch's events after id ``after`` (GET /v1/batches/{id}/events)."""
        progress = self.lifecycle.batches
        return progress.events.events(batch_id, after) if progress is not None else []

    def page(
        self, tenant: str, where: JobFilter | str | None, limit: int, cursor: str | None
    ) -> tuple[list[Job], str | None]:
        return self.store.records.page(tenant, where, limit, cursor)

    def artifact(self, job: Job, name: str) -> Artifact | None:
        """A published artifact, or None."""
        if not is_artifact(name) or name not in job.artifacts:
            return None
        return self.artifacts.served(job.tenant, job.id, name)

    def voices(self) -> list[Voice]:
        return list(self.pipeline.catalog.voices)

    # -- change ----------------------------------------------------------------------------
    def cancel(self, job: Job, settle_batch: bool = True) -> bool:
        """Cancel a queued or running job; False when it had ended (by the time the cancel
        was written: it keeps what it made). ``settle_batch`` False: the caller settles the
        job's batch once for all the items it cancels (service/jobs/batches.py)."""
        if job.terminal or not self.store.transitions.advance(job.id, CANCELED):
            return False
        # the outbox (workers' senders send it), and the item's event on its batch's stream
        self.lifecycle.ended(job.id, retry=False, settle_batch=settle_batch)
        self.lifecycle.discard_work(job)  # a step still running stops at its next check
        return True

    def cancel_many(self, jobs: list[Job]) -> int:
        """``cancel`` (its batch left to the caller to settle) for many jobs, their moves
        written together (JobStore.advance_many); how many were canceled."""
        live = [j for j in jobs if not j.terminal]
        moved = self.store.transitions.advance_many([j.id for j in live], CANCELED)
        for job in (j for j, ok in zip(live, moved, strict=True) if ok):
            self.lifecycle.ended(job.id, retry=False, settle_batch=False)
            self.lifecycle.discard_work(job)
        return sum(moved)

    def cancel_or_delete(self, job: Job) -> str:
        """Cancel a queued or running job; delete a finished one with its artifacts."""
        if self.cancel(job):
            return "canceled"
        self.files.delete(job.tenant, job.id)
        self.store.records.discard(job)
        return "deleted"

    # -- operations ------------------------------------------------------------------------
    def readiness(self) -> dict[str, bool | int | float | None]:
        """Redis answers, how many workers beat within ``worker_dead_after`` and, with fair
        share, whether a dispatcher holds its lease (``dispatcher``) and how long ago one
        last did (``dispatcher_seen``, seconds; None: never): one read on the job store's
        client (its timeout is NARRATE_REDIS_TIMEOUT). Never a Celery ping, which holds a
        broker connection while it waits for another one. ``ready``: the answer."""
        s = self.settings
        try:
            fleet = self.store.fleet.fleet(s.worker_dead_after)
        except StoreUnavailable:
            return {"redis": False, "workers": 0, "ready": False}
        checks: dict[str, bool | int | float | None] = {"redis": True, "workers": len(fleet.live)}
        dispatching = True
        if s.fair_share:
            seen = fleet.dispatcher_seen
            checks["dispatcher"] = fleet.dispatcher is not None
            checks["dispatcher_seen"] = None if seen is None else round(seen, 1)
            dispatching = fleet.dispatcher is not None or (
                seen is not None and seen <= s.dispatch_dead_after
            )
        checks["storage"] = self._same_storage(fleet.storages or {})
        checks["ready"] = bool(fleet.live) and dispatching and bool(checks["storage"])
        return checks

    def _same_storage(self, storages: dict[str, str]) -> bool:
        """Every live worker publishes where this API serves from. Workers on local storage
        in another data dir (another machine) make artifacts this API answers 404 for: a
        fleet on several machines needs NARRATE_STORAGE_URL=s3://… or one shared data dir."""
        mine = self.artifacts.identity()
        elsewhere = sorted(w for w, found in storages.items() if found != mine)
        if elsewhere and elsewhere != self._elsewhere:
            log.warning(
                "worker(s) %s publish artifacts where this API cannot serve them (storage %s, "
                "not %s): set NARRATE_STORAGE_URL=s3://… on every machine, or share one data dir",
                ", ".join(elsewhere),
                storages[elsewhere[0]],
                mine,
            )
        self._elsewhere = elsewhere
        return not elsewhere

    def count_stored_jobs(self, stop: threading.Event, retry: float = 30.0) -> None:
        """Once per store: count the jobs kept from before the per-state counters (a scan);
        retried while Redis is unreachable, until ``stop``."""
        while not stop.is_set():
            try:
                n = self.store.counts.backfill()
            except StoreUnavailable as exc:
                log.warning("jobs not counted yet for /metrics (%s); retrying", exc)
                stop.wait(retry)
                continue
            if n:
                log.info("counted %d jobs stored before the per-state counters", n)
            return

    def figures(self) -> Figures:
        depth = self.store.counts.queue_depth(self.queue.name)
        lanes = self.lanes.depths() if self.lanes is not None else {}
        running = self.store.counts.in_flight()
        backlog = {self.queue.name: Backlog(depth + sum(lanes.values()), 0)}
        for queue, n in running.items():  # every queue a worker holds tasks of
            backlog[queue] = Backlog(backlog.get(queue, Backlog(0, 0)).waiting, n)
        return Figures(
            self.store.counts.count_by_state(),
            depth,
            self.store.metrics.stage_histograms(),
            self.store.metrics.tts_calls(),
            self.store.counts.tenant_jobs(),
            lanes,
            self.store.metrics.tenant_waits(),
            backlog,
        )

"""The jobs layer's ports: the queue, the job store by role (records, transitions, the
segment ledger, deliveries, events, the active set, the queue's heads, the fleet's
heartbeats, the sweep), the fleet-wide metrics and the tenants' stores."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from service.domain.batch import Batch
from service.domain.job import Job, JobFilter, JobStatus
from service.domain.job_changes import JobUpdate, SegmentUpdate, Transition
from service.domain.wire import JsonObject

# The two steps of a job, by the names the queue carries them under, and the queue's name.
SEGMENT_TASK = "narrate.segment"
FINALIZE_TASK = "narrate.finalize"
QUEUE = "narrate"


class Queue(Protocol):
    """Where job steps wait for a worker (the broker)."""

    name: str

    def send(self, name: str, args: list[Any]) -> None: ...

    def encode(self, name: str, args: list[Any]) -> str: ...

    # A message as the broker holds it: JSON (kombu's envelope, or the memory queue's own).
    def step(self, message: JsonObject) -> tuple[str, str] | None:
        """(job id, step) of a message as the broker holds it (None: not a job step)."""
        ...


@dataclass(frozen=True, slots=True)
class Fleet:
    """The workers by their heartbeats, and the fair-share dispatcher by its lease."""

    live: list[str]  # worker instances ("<hostname> <pid>") that beat within dead_after
    dead: list[str]
    dispatcher: str | None = None  # the lease's holder now (None: nobody holds it)
    dispatcher_seen: float | None = None  # seconds since the lease was last held (None: never)
    storages: dict[str, str] | None = None  # live worker -> its Artifacts.identity(), if it said


@dataclass(frozen=True, slots=True)
class JobEvent:
    """One change of a job as GET /v1/jobs/{id}/events sends it: ``id`` orders the job's
    events (a Redis Stream id, "<ms>-<n>"), ``event`` is status | update | segment and
    ``data`` the fields that changed (``status`` carries the job's new status)."""

    id: str
    event: str
    data: JsonObject


class JobSweep(Protocol):
    """Which finished jobs are old enough to go, and the keys no job owns any more."""

    def created_before(self, cutoff: float) -> list[tuple[str, str]]:
        """(tenant, job id) of every listed job created before ``cutoff`` (seconds)."""
        ...

    def existing(self, job_ids: Iterable[str]) -> set[str]: ...

    def strays(self) -> tuple[list[str], list[tuple[str, str]]]:
        """Keys of jobs whose record is gone, and listing entries naming no record."""
        ...

    def remove(self, keys: list[str], entries: list[tuple[str, str]]) -> None: ...


# The job store by role: each caller holds the roles it uses. One adapter may play several
# (adapters/redis/jobstore.py, adapters/memory/jobstore.py play all of them); a store that
# cannot be reached raises StoreUnavailable (service/domain/errors.py), never its client's
# errors. Every change is atomic; status only moves forward. Records are written and read
# through service/domain/job_record.py (a record of an older schema is upgraded as it is
# read, service/domain/schemas.py).


@dataclass(frozen=True, slots=True)
class NewJob:
    """A job as JobRecords.create stores it, with what the same atomic step writes: its
    Idempotency-Key ``idem`` (key, body hash; None: none) and its first queue ``messages``
    (each a Queue's ``encode``) for ``queue`` (a queue's or a lane's name; "": the store's
    default). ``budget``: the seconds the step has to reach the store (a store that can tell,
    Redis, writes nothing later and raises StoreUnavailable)."""

    job: Job
    idem: tuple[str, str] | None = None
    messages: Sequence[str] = ()
    queue: str = ""
    budget: float = 3600.0


class JobRecords(Protocol):
    """Job records: stored with their first tasks, read one, many or a page at a time."""

    def ping(self) -> bool: ...

    def create(self, new: NewJob) -> tuple[Job, bool]:
        """Store ``new.job`` and hand its first ``messages`` to ``queue`` in one step, unless
        ``idem`` names a job already: then that job and False."""
        ...

    def discard(self, job: Job) -> None: ...

    def get(self, job_id: str) -> Job | None: ...

    def get_many(self, job_ids: Sequence[str]) -> list[Job | None]:
        """Each job (None: absent), in the order asked, in one round trip."""
        ...

    def status(self, job_id: str) -> JobStatus | None: ...

    def page(
        self, tenant: str, where: JobFilter | str | None, limit: int, cursor: str | None
    ) -> tuple[list[Job], str | None]:
        """Newest first by (created, id), the jobs ``where`` keeps (a bare string: a
        status); ``cursor`` continues after a page (opaque)."""
        ...


class JobTransitions(Protocol):
    """A job's changes of status and fields, each one an event in its EventLog."""

    def advance(self, job_id: str, to: Transition) -> bool:
        """Move the job to ``to.status`` with its fields, unless that moves it back or out
        of a terminal state (False: nothing written)."""
        ...

    def advance_many(self, job_ids: Sequence[str], to: Transition) -> list[bool]:
        """``advance`` each job (in as few round trips as the store can): which moved."""
        ...

    def update(self, job_id: str, change: JobUpdate) -> None: ...


class SegmentLedger(Protocol):
    """Each segment's state, and which are done: the last one done enqueues finalize."""

    def set_segment(self, job_id: str, index: int, change: SegmentUpdate) -> None: ...

    def segment_done(self, job_id: str, index: int) -> bool:
        """Record segment ``index`` finished; True for exactly one call: the last segment."""
        ...

    def done_segments(self, job_id: str) -> set[int]: ...


class Deliveries(Protocol):
    """How many times each step of a job was handed to a worker (a step that keeps killing
    its workers is capped)."""

    def deliveries(self, job_id: str, task: str) -> int:
        """Count one more delivery of ``task``; 0: the job is gone."""
        ...

    def delivered(self, job_id: str, task: str) -> int: ...


class EventLog(Protocol):
    """The job's events, written by JobTransitions and SegmentLedger."""

    def events(self, job_id: str, after: str = "0-0", count: int = 100) -> list[JobEvent]:
        """The job's events after id ``after`` (oldest first, at most ``count``); never
        blocks."""
        ...


class ActiveJobs(Protocol):
    """The jobs not yet terminal, for the reconciler."""

    def active(self) -> list[str]: ...

    def forget_active(self, job_id: str) -> None: ...


class QueueHeads(Protocol):
    """The broker's queue as the store sees it: its head, and the messages workers hold."""

    def push_first(self, queue: str, message: str) -> None:
        """Put ``message`` (a Queue's ``encode``) where the next worker takes it first."""
        ...

    def hand_back(self, worker: str, queue: str, dead_after: float | None) -> int:
        """Put what a dead ``worker`` held back on ``queue``, once; how many went back."""
        ...

    def hand_back_orphans(self, queue: str, older_than: float) -> int:
        """Put back on ``queue`` every message delivered over ``older_than`` s ago that no
        worker's heartbeat holds (a step cancelled at a connection loss, whose restore ran
        while the broker was away); how many went back."""
        ...

    # kombu's envelopes as the broker holds them: JSON, read by Queue.step.
    def broker_messages(self, queue: str) -> list[JsonObject]:
        """Every message the broker holds for ``queue``, waiting or delivered."""
        ...


class FleetRegistry(Protocol):
    """The workers by their heartbeats (adapters/redis/fleet.py)."""

    def beat(self, worker: str, held: Iterable[str]) -> None:
        """``worker`` is alive and holds these delivery tags."""
        ...

    def leave(self, worker: str) -> None: ...

    def announce(self, worker: str, storage: str) -> None:
        """``worker`` publishes artifacts to the storage of this identity."""
        ...

    def fleet(self, dead_after: float) -> Fleet: ...


# The upper bounds (seconds) of the stage histograms every Metrics keeps and /metrics shows.
BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
# Those of the tenants' wait histograms (submit to first segment start): a backlog waits long.
WAIT_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)


class Metrics(Protocol):
    """Fleet-wide figures every worker process adds to and /metrics reads; StoreUnavailable
    when the store behind them cannot be reached."""

    def observe_stage(self, stage: str, seconds: float) -> None: ...

    def stage_histograms(self) -> dict[str, dict[str, float]]: ...

    def observe_wait(self, tenant: str, seconds: float) -> None:
        """A job of ``tenant`` started ``seconds`` after it was submitted."""
        ...

    def tenant_waits(self) -> dict[str, dict[str, float]]:
        """Per tenant, the wait histogram: bucket bound (WAIT_BUCKETS) -> jobs at most that
        long, and "count" and "sum"."""
        ...

    def count_tts(self, engine: str, n: int = 1) -> None: ...

    def tts_calls(self) -> dict[str, int]: ...


class Counts(Protocol):
    """What /metrics counts in the store at scrape time: jobs by state, the queue."""

    def count_by_state(self) -> dict[str, int]: ...

    def queue_depth(self, queue: str) -> int: ...

    def in_flight(self) -> dict[str, int]:
        """Per queue, the tasks delivered to a worker and not yet acked (running: with
        acks_late and no prefetch, each one a worker is working on)."""
        ...

    def tenant_jobs(self) -> dict[tuple[str, str], int]:
        """Queued and running jobs by (tenant, state), as the quotas count them."""
        ...

    def backfill(self, batch: int = 500) -> int:
        """Count the jobs stored before the per-state counters existed (once per store)."""
        ...


class Quotas(Protocol):
    """Each tenant's use, shared by every API process: adapters/redis/quotas.py on Redis,
    adapters/memory/quotas.py in memory. StoreUnavailable when the store cannot be reached."""

    def take(self, tenant: str, per_minute: int) -> float:
        """Take one of ``tenant``'s submission tokens (``per_minute`` a minute, as many at
        once): 0.0 when taken, else the seconds until one is there (nothing taken)."""
        ...

    def in_use(self, tenant: str) -> tuple[int, int]:
        """(queued, running) jobs of ``tenant``."""
        ...

    def reserve(
        self, tenant: str, token: str, jobs: int, limit: int, ttl: float
    ) -> tuple[bool, int]:
        """In one atomic step: unless ``tenant``'s queued jobs, plus those held by other
        reservations, plus ``jobs`` pass ``limit``, hold ``jobs`` under ``token`` (for at most
        ``ttl`` s) as queued. (admitted, the queued and held before it)."""
        ...

    def release(self, tenant: str, token: str) -> None:
        """Drop a reservation (its jobs are stored, or the submission refused)."""
        ...


class PresetStore(Protocol):
    """Each tenant's saved job presets, as JSON by name; shared by every API process."""

    def saved(self, tenant: str) -> dict[str, str]: ...

    def get(self, tenant: str, name: str) -> str | None: ...

    def put(self, tenant: str, name: str, data: str, limit: int) -> bool:
        """Save (or replace) one; False, saving nothing, when ``tenant`` already has
        ``limit`` others."""
        ...

    def delete(self, tenant: str, name: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class LexiconVersion:
    """One version of ``tenant``'s dictionary ``lexicon_id`` as a LexiconStore writes it: its
    ``about`` (a small summary: name, counts) and ``data`` (its rules), both JSON written by
    service/jobs/lexicons.py."""

    tenant: str
    lexicon_id: str
    about: str
    data: str


class LexiconStore(Protocol):
    """Each tenant's pronunciation dictionaries, shared by every API process: per dictionary,
    every version's ``about`` and ``data`` (LexiconVersion), version 1 first. Redis in
    adapters/redis/lexicons.py, memory in adapters/memory/lexicons.py."""

    def create(self, version: LexiconVersion, limit: int) -> bool:
        """Store ``version`` as version 1 of a new dictionary; False, storing nothing, when
        its tenant already has ``limit`` dictionaries (or one of that id)."""
        ...

    def update(self, version: LexiconVersion, limit: int, after: int | None = None) -> int:
        """Store the next version and return its number; 0 when there is no such dictionary,
        -1 when it already has ``limit`` versions, -2 when ``after`` is given and the latest
        version is another (a read-modify-write raced): nothing stored in those cases."""
        ...

    def get(
        self, tenant: str, lexicon_id: str, version: int | None = None
    ) -> tuple[int, str] | None:
        """A version's data (None: the latest) as (its number, data), or None."""
        ...

    def versions(self, tenant: str, lexicon_id: str) -> list[str]:
        """Each version's about, version 1 first ([]: no such dictionary)."""
        ...

    def latest(self, tenant: str) -> dict[str, tuple[int, str]]:
        """Every dictionary of ``tenant``: id -> (its latest version, that version's about)."""
        ...

    def delete(self, tenant: str, lexicon_id: str) -> bool:
        """The dictionary and every version of it gone; False when there was none."""
        ...


class BatchStore(Protocol):
    """Batch records (service/domain/batch.py), shared by every API process: Redis in
    adapters/redis/batches.py, memory in adapters/memory/batches.py. StoreUnavailable when the
    store cannot be reached."""

    def create(self, batch: Batch, idem: tuple[str, str] | None = None) -> tuple[Batch, bool]:
        """Store ``batch`` unless ``idem`` (key, body hash) names one already: then that batch
        and False (IdempotencyConflict for the key with another body)."""
        ...

    def discard(self, batch: Batch, idem: str | None = None) -> None:
        """Remove the record, its listing entry and its Idempotency-Key ``idem``."""
        ...

    def get(self, batch_id: str) -> Batch | None: ...

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Batch], str | None]:
        """Newest first by (created, id); ``cursor`` continues after a page (opaque)."""
        ...


class BatchEvents(Protocol):
    """Each batch's change events (its items' status and stage changes, then ``completed``)
    for GET /v1/batches/{id}/events: adapters/redis/batch_events.py on Redis (a Stream per batch),
    adapters/memory/batches.py in memory. Ids order a batch's events as JobEvent's do."""

    def publish(self, batch_id: str, event: str, data: JsonObject) -> None: ...

    def events(self, batch_id: str, after: str = "0-0", count: int = 100) -> list[JobEvent]: ...

    def complete(self, batch_id: str, data: JsonObject) -> bool:
        """Write the batch's ``completed`` event, once: True for the call that wrote it."""
        ...

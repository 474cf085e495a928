"""A job as the service keeps it: its status, its plan, its segments' states, how far along
it is and how it ended (the aggregate; how it is stored is service/domain/job_record.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from service.domain.errors import InputError
from service.domain.notices import Notice
from service.domain.plan import JobPlan
from service.domain.spec import JobSpec, RenderOptions

SYNTH_SHARE = 0.7  # share of the progress bar that segment synthesis fills; finalize the rest


class JobStatus(StrEnum):
    """Where a job is: the one list of states (the API's enum, the stores' order, the page's
    constants in service/api/static/job-states.js are made from it). A StrEnum: each one is
    the very string the API sends and the stores keep."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"

    @property
    def rank(self) -> int:
        """Status only moves forward: to a higher rank (the terminal ones share the top)."""
        return _RANK[self]

    @property
    def terminal(self) -> bool:
        return self in TERMINAL


_RANK = {
    JobStatus.QUEUED: 0,
    JobStatus.RUNNING: 1,
    JobStatus.SUCCEEDED: 2,
    JobStatus.FAILED: 2,
    JobStatus.CANCELED: 2,
}
TERMINAL = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED)
STATES = tuple(s.value for s in JobStatus)  # as the wire and the stores spell them
# A job that ended without its artifacts: it keeps no files at all.
UNSUCCESSFUL = (JobStatus.FAILED, JobStatus.CANCELED)


@dataclass(frozen=True, slots=True)
class SegmentFields:
    """The fields of a segment's state, in the order its stored JSON and its events hold
    them; None where not set. SegmentRecord is a segment's state, SegmentUpdate
    (service/domain/job_changes.py) a change of some of it: one list of fields for both."""

    state: str | None = None  # queued | running | done
    worker: str | None = None
    pid: int | None = None
    started: float | None = None
    deliveries: int | None = None  # how many times its task was delivered, this run's
    engine: str | None = None
    voice: str | None = None
    native_rate: float | None = None
    stretch_ratio: float | None = None
    finished: float | None = None
    warnings: list[Notice] | None = None
    tts_calls: int | None = None  # 0: every request hit the TTS cache


@dataclass(frozen=True, slots=True)
class SegmentRecord(SegmentFields):
    """One segment's state as the steps record it (service/jobs/steps.py): queued when the
    job is stored, then who runs it and since when, then what spoke it. Fields not recorded
    yet are None (and absent from the stored JSON)."""

    state: str = "queued"  # in its place among the fields: a record always has one


@dataclass
class Job:
    id: str
    tenant: str
    status: JobStatus
    created: float
    updated: float
    # The JobPlan made at the door (service/domain/plan.py): what every step runs on, so none
    # re-plans, re-probes or re-casts. It holds the spec and the options (``spec``,
    # ``submitted``): the record keeps no copies of them. Read from a store, it is the plan's
    # JSON until ``plan`` is first read: a batch's view reads a thousand records and no plan.
    planned: JobPlan | str
    has_video: bool
    segments_total: int
    error: Notice | None = None  # why it failed or was canceled
    warnings: list[Notice] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    stage: str = ""
    stage_progress: float = 0.0
    segments: dict[int, SegmentRecord] = field(default_factory=dict)
    parent: str | None = None  # the job this one re-renders (a fix made in the studio)
    has_music: bool = False  # a music file to lay under the voice (input/source.music)
    batch: str | None = None  # the batch it was submitted in (service/domain/batch.py)

    @property
    def plan(self) -> JobPlan:
        if isinstance(self.planned, str):
            self.planned = JobPlan.model_validate_json(self.planned)
        return self.planned

    @property
    def spec(self) -> JobSpec:
        """The spec as planned (the options applied): what the job speaks."""
        return self.plan.spec

    @property
    def submitted(self) -> RenderOptions:
        """The options as the job was submitted (presets resolved): the plan's, but for the
        Traditional track the voices' locale chose (a re-render chooses it again)."""
        if self.plan.traditional_by_voice:
            return self.plan.options.model_copy(update={"traditional": None})
        return self.plan.options

    @property
    def title(self) -> str:
        return self.plan.spec.title or ""

    @property
    def started(self) -> float | None:
        """When its first step started (None: still waiting in the queue)."""
        times = [s.started for s in self.segments.values() if s.started is not None]
        return min(times) if times else None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def progress(self) -> float:
        """Finished segments fill SYNTH_SHARE of the bar; finalize reports the rest itself."""
        if self.status == JobStatus.SUCCEEDED:
            return 1.0
        done = sum(1 for s in self.segments.values() if s.state == "done")
        frac = SYNTH_SHARE * done / max(1, self.segments_total)
        return round(max(frac, self.stage_progress), 4)


def page_cursor(created_ms: int, job_id: str) -> str:
    return f"{created_ms}:{job_id}"


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """(ms, id) to continue below; a bare ms (no id) continues below the millisecond."""
    if cursor is None:
        return None
    ms, _, job_id = cursor.partition(":")
    # ASCII only: str.isdigit() takes '²' and int() then refuses it (a 500)
    digits = ms.isascii() and ms.isdigit() and len(ms) <= 20
    named = (job_id.isascii() and job_id.isalnum()) or job_id == ""
    if not digits or not named or len(job_id) > 64:
        raise InputError(
            f"cursor {cursor!r} is not one a listing gave (<ms>:<job id>)", loc=("cursor",)
        )
    return int(ms), job_id


STREAM_ID_MAX = 2**64 - 1  # each part of a Redis stream id is an unsigned 64-bit number


def stream_after(after: str | None) -> str:
    """The event id to read after: an id no stream can hold (a part past 2^64 - 1: never
    one we gave, and Redis refuses it, which ended the stream) reads from the start, as if
    none were given; the client has the snapshot, then every event."""
    ms, _, n = (after or "0-0").partition("-")
    parts = [int(p) if p.isascii() and p.isdigit() else -1 for p in (ms, n or "0")]
    return after if after and all(0 <= p <= STREAM_ID_MAX for p in parts) else "0-0"


@dataclass(frozen=True, slots=True)
class JobFilter:
    """What a listing keeps (GET /v1/jobs): a status, a batch id, and ``q``, a piece of the
    title or the job id (case-insensitive). Empty fields keep everything."""

    status: str | None = None
    batch: str | None = None
    q: str = ""

    @staticmethod
    def of(where: JobFilter | str | None) -> JobFilter:
        """A filter from a listing's argument (a bare status, as the port took before)."""
        return where if isinstance(where, JobFilter) else JobFilter(status=where)

    def matches(self, job: Job) -> bool:
        if self.status is not None and job.status != self.status:
            return False
        if self.batch is not None and job.batch != self.batch:
            return False
        if not self.q:
            return True
        needle = self.q.casefold()
        return needle in job.title.casefold() or needle in job.id.casefold()

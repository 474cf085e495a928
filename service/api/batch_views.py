"""A batch as the API shows it: counts by state, each item's job and status, progress."""

from __future__ import annotations

from fastapi import Request
from pydantic import BaseModel

from service.api.schemas import from_record
from service.api.wire_types import FreeObject
from service.domain.batch import Batch, BatchItem, batch_status, counts
from service.domain.job import Job
from service.domain.notices import Notice


class BatchItemOut(BaseModel):
    name: str
    job: str
    status: str  # the job's, or "deleted" once the job is gone
    progress: float
    stage: str
    engines: list[str | None]
    error: Notice | None
    artifacts: list[str]
    links: dict[str, str]
    # The segments the speech check flagged (its speech.mismatch warnings), 1-based
    flagged: list[int] = []


def flagged_segments(job: Job) -> list[int]:
    return sorted({w.segment for w in job.warnings if w.code == "speech.mismatch" and w.segment})


class BatchOut(BaseModel):
    id: str
    status: str  # queued | running | succeeded | failed | canceled (from its items)
    progress: float  # the items' mean
    created: float
    counts: dict[str, int]  # items by state
    items: list[BatchItemOut]
    # Items refused at the door ("partial": true): name, detail; the 422 problems' wire shape.
    refused: list[FreeObject]
    links: dict[str, str]


class BatchList(BaseModel):
    batches: list[BatchOut]
    next_cursor: str | None


def _item(request: Request, item: BatchItem, job: Job | None) -> BatchItemOut:
    link = str(request.url_for("get_job", job_id=item.job))
    if job is None:
        return BatchItemOut(
            name=item.name,
            job=item.job,
            status="deleted",
            progress=0.0,
            stage="",
            engines=[],
            error=None,
            artifacts=[],
            links={"job": link},
        )
    return from_record(
        BatchItemOut,
        job,
        name=item.name,
        job=job.id,
        engines=[s.engine for _, s in sorted(job.segments.items())],
        links={"job": link},
        flagged=flagged_segments(job),
    )


def batch_out(request: Request, batch: Batch, jobs: list[tuple[BatchItem, Job | None]]) -> BatchOut:
    items = [_item(request, item, job) for item, job in jobs]
    by_state = counts(i.status for i in items if i.status != "deleted")
    base = str(request.url_for("get_batch", batch_id=batch.id))
    return from_record(
        BatchOut,
        batch,
        status=batch_status(by_state) if sum(by_state.values()) else "canceled",
        progress=round(sum(i.progress for i in items) / max(1, len(items)), 4),
        counts=by_state,
        items=items,
        links={"self": base, "artifacts": f"{base}/artifacts.zip"},
    )

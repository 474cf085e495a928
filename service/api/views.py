"""A job record as the API shows it."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from service.api.schemas import JobOut, Links, Problem, SegmentState
from service.domain.job import Job

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem},
    404: {"model": Problem},
    409: {"model": Problem},
    413: {"model": Problem},
    422: {"model": Problem},
    503: {"model": Problem},
}


def links(request: Request, job: Job) -> Links:
    base = str(request.url_for("get_job", job_id=job.id))
    return Links(self=base, artifacts={n: f"{base}/artifacts/{n}" for n in job.artifacts})


def job_out(request: Request, job: Job) -> JobOut:
    segs = [
        SegmentState(
            index=i + 1,
            **{k: v for k, v in s.items() if k in SegmentState.model_fields and k != "index"},
        )
        for i, s in sorted(job.segments.items())
    ]
    return JobOut(
        id=job.id,
        status=job.status,
        progress=job.progress,
        stage=job.stage,
        created=job.created,
        updated=job.updated,
        title=str(job.spec.get("title", "")),
        segments=segs,
        engines=[s.engine for s in segs],
        timings=job.timings,
        warnings=job.warnings,
        error=job.error,
        artifacts=job.artifacts,
        links=links(request, job),
        parent=job.parent,
        batch=job.batch,
    )

"""A job record as the API shows it."""

from __future__ import annotations

from fastapi import Request

from service.api.schemas import JobOut, Links, Problem, SegmentState
from service.api.wire_types import answers
from service.domain.job import Job

# The errors any route may answer (OpenAPI response objects).
ERRORS = answers({code: {"model": Problem} for code in (401, 404, 409, 413, 422, 503)})


def links(request: Request, job: Job) -> Links:
    base = str(request.url_for("get_job", job_id=job.id))
    return Links(self=base, artifacts={n: f"{base}/artifacts/{n}" for n in job.artifacts})


def job_out(request: Request, job: Job) -> JobOut:
    segs = [
        SegmentState(
            index=i + 1,
            state=s.state,
            engine=s.engine,
            voice=s.voice,
            worker=s.worker,
            native_rate=s.native_rate,
            stretch_ratio=s.stretch_ratio,
            tts_calls=s.tts_calls,
            warnings=s.warnings or [],
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
        title=job.title,
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

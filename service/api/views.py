"""A job record as the API shows it."""

from __future__ import annotations

from fastapi import Request

from service.api.schemas import JobOut, Links, Problem, SegmentState, from_record
from service.api.wire_types import answers
from service.domain.job import Job

# The errors any route may answer (OpenAPI response objects).
ERRORS = answers({code: {"model": Problem} for code in (401, 404, 409, 413, 422, 503)})


def links(request: Request, job: Job) -> Links:
    base = str(request.url_for("get_job", job_id=job.id))
    return Links(self=base, artifacts={n: f"{base}/artifacts/{n}" for n in job.artifacts})


def job_out(request: Request, job: Job) -> JobOut:
    segs = [
        from_record(SegmentState, s, index=i + 1, warnings=s.warnings or [])
        for i, s in sorted(job.segments.items())
    ]
    engines = [s.engine for s in segs]
    return from_record(JobOut, job, segments=segs, engines=engines, links=links(request, job))

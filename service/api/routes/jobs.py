"""/v1/jobs: submit, follow, list, cancel or delete."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from service.api.deps import CurrentSettings, Jobs, OwnedJob, Tenant
from service.api.intake import parse_body, read_body
from service.api.schemas import Created, JobList, JobOut
from service.api.views import ERRORS, job_out, links
from service.api.wire_types import RequestBody, request_body
from service.api.zipstream import zip_stream
from service.domain.errors import StorageUnavailable
from service.domain.job import Job, JobFilter
from service.jobs import JobService, Submission
from service.ports import Artifact, Incoming

log = logging.getLogger("narrate.api")
router = APIRouter(prefix="/v1/jobs", responses=ERRORS)
Q = "a piece of the job's title (its script's 标题) or of its id, case-insensitive"

# Published: the route reads its body itself (JSON or multipart).
REQUEST_BODY: RequestBody = {
    "required": True,
    "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/JobSpec"}},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["script"],
                "properties": {
                    "script": {"type": "string", "format": "binary"},
                    "video": {"type": "string", "format": "binary"},
                    "music": {
                        "type": "string",
                        "format": "binary",
                        "description": "audio laid under the voice (looped, ducked): mix.wav",
                    },
                    "options": {"type": "string", "description": "RenderOptions as JSON"},
                    "take-1": {
                        "type": "string",
                        "format": "binary",
                        "description": "a recorded take of segment 1 instead of synthesis "
                        "(take-2, take-3... likewise), or `take`: one of the whole script",
                    },
                },
            }
        },
    },
}


@router.post(
    "",
    status_code=202,
    response_model=Created,
    openapi_extra=request_body(REQUEST_BODY),
)
async def create_job(
    request: Request,
    response: Response,
    who: Tenant,
    service: Jobs,
    settings: CurrentSettings,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> Created:
    """Create a job from a JSON job spec, or from multipart fields `script` (Markdown or
    JSON file), optional `video` (file), optional `music` (audio file laid under the voice),
    optional recorded takes (`take-N` for segment N, or `take` for the whole script) and
    optional `options` (JSON)."""
    job_id = service.new_id()
    video, music = service.receive(who, job_id, "video"), service.receive(who, job_id, "music")
    takes: list[Incoming] = []

    def take(name: str) -> Incoming:
        takes.append(service.receive(who, job_id, name))
        return takes[-1]

    try:
        body = await read_body(request, settings, video, music, take)
        # Parsing, planning (ffprobe) and Redis all block: never on the event loop.
        job, created = await run_in_threadpool(accept, service, who, job_id, body, idempotency_key)
    except BaseException:
        await run_in_threadpool(_drop, service, who, job_id, video, music, *takes)
        raise
    finally:
        for upload in (video, music, *takes):
            upload.close()  # the local copies the checks read (the stored input stays)
    if not created:  # an Idempotency-Key replay: the first request's job is the answer
        await run_in_threadpool(service.drop_upload, who, job_id)
    response.headers["Location"] = str(request.url_for("get_job", job_id=job.id))
    return Created(id=job.id, status=job.status, links=links(request, job))


def _drop(service: JobService, who: str, job_id: str, *uploads: Incoming) -> None:
    """Leave nothing of a request that made no job: no upload part, no input."""
    try:
        for upload in uploads:
            upload.abort()
        service.drop_upload(who, job_id)
    except StorageUnavailable as exc:  # the request's own error is the one to answer
        log.warning("job %s: upload left in storage: %s", job_id, exc)


def accept(
    service: JobService, who: str, job_id: str, body: Any, idempotency_key: str | None
) -> tuple[Job, bool]:
    """Turn a read body into a stored, queued job (in a worker thread)."""
    parsed = parse_body(body)
    idem = (idempotency_key, parsed.digest) if idempotency_key else None
    ask = Submission(
        who, job_id, parsed.spec, parsed.options, parsed.video, parsed.takes, parsed.music
    )
    return service.submit(ask, idem)


@router.get("/{job_id}", response_model=JobOut)
def get_job(request: Request, job: OwnedJob) -> JobOut:
    return job_out(request, job)


@router.get("", response_model=JobList)
def list_jobs(
    request: Request,
    who: Tenant,
    service: Jobs,
    status: Annotated[
        str | None, Query(pattern="^(queued|running|succeeded|failed|canceled)$")
    ] = None,
    batch: Annotated[str | None, Query(max_length=64, pattern="^[A-Za-z0-9]+$")] = None,
    q: Annotated[str, Query(max_length=100, description=Q)] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
) -> JobList:
    """The tenant's jobs, newest first, filtered by status, batch id and ``q``."""
    where = JobFilter(status=status, batch=batch, q=q.strip())
    jobs, nxt = service.page(who, where, limit, cursor)
    return JobList(jobs=[job_out(request, j) for j in jobs], next_cursor=nxt)


@router.get(
    "/{job_id}/artifacts.zip",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/zip": {}}, "description": "every artifact"}},
)
def job_zip(job: OwnedJob, service: Jobs) -> StreamingResponse:
    """Every published artifact of the job under its own name (segments/NN.wav in a folder),
    stored (not recompressed) and streamed as it is read: never built whole."""
    return StreamingResponse(
        zip_stream(_artifacts(service, job)),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="job-{job.id}.zip"'},
    )


def _artifacts(service: JobService, job: Job) -> Iterator[tuple[str, Artifact]]:
    for name in job.artifacts:
        found = service.artifact(job, name)
        if found is not None:
            yield name, found


@router.delete("/{job_id}")
def delete_job(job: OwnedJob, service: Jobs) -> dict[str, str]:
    return {"id": job.id, "result": service.cancel_or_delete(job)}

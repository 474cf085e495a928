"""/v1/batches: many scripts in one request, followed, listed, canceled and downloaded as
one zip. Every item is an ordinary job carrying the batch's id."""

from __future__ import annotations

import hashlib
import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from service.api.batch_intake import Groups, parse_items, parse_json, parse_part
from service.api.batch_uploads import read_batch_multipart
from service.api.batch_views import BatchList, BatchOut, batch_out
from service.api.deps import CurrentSettings, Jobs, Tenant
from service.api.views import ERRORS
from service.api.wire_types import RequestBody, request_body
from service.api.zipstream import zip_stream
from service.config import Settings
from service.domain.batch import Batch, merged
from service.domain.errors import StorageUnavailable
from service.domain.wire import JsonObject
from service.jobs import JobService
from service.jobs.batches import BatchService
from service.ports import Incoming

log = logging.getLogger("narrate.api")
router = APIRouter(prefix="/v1/batches", responses=ERRORS)

_FILE: JsonObject = {"type": "array", "items": {"type": "string", "format": "binary"}}
# Published: the route reads its body itself (JSON or multipart).
REQUEST_BODY: RequestBody = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["items"],
                "properties": {
                    "items": {"type": "array", "items": {"type": "object"}},
                    "options": {"type": "object"},
                    "preset": {"type": "string"},
                    "partial": {"type": "boolean"},
                },
            }
        },
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "script": _FILE,
                    "video": _FILE,
                    "music": _FILE,
                    "take": {
                        **_FILE,
                        "description": "recorded takes paired by name: intro.take-2.wav is "
                        "segment 2 of intro, intro.take.wav its whole script",
                    },
                    "options": {"type": "string", "description": "shared RenderOptions (JSON)"},
                    "batch": {"type": "string", "description": "the JSON form, for overrides"},
                },
            }
        },
    },
}


def batches(request: Request) -> BatchService:
    found: BatchService = request.app.state.batches
    return found


Batches = Annotated[BatchService, Depends(batches)]


def owned_batch(batch_id: str, who: Tenant, service: Batches) -> Batch:
    batch = service.owned(batch_id, who)
    if batch is None:
        raise HTTPException(404, "no such batch")
    return batch


OwnedBatch = Annotated[Batch, Depends(owned_batch)]


class Intake:
    """What a request has put in storage so far: each name group's job id and file parts."""

    def __init__(self, jobs: JobService, who: str) -> None:
        self.jobs, self.who = jobs, who
        self.groups = Groups()
        self.parts: dict[tuple[str, str], Incoming] = {}

    def receive(self, group: str, kind: str) -> Incoming:
        job_id = self.groups.ids.setdefault(group, self.jobs.new_id())
        self.parts[group, kind] = incoming = self.jobs.receive(self.who, job_id, kind)
        return incoming

    def drop(self, keep: set[str], abort: bool) -> None:
        """Leave nothing of the uploads no new job owns (blocking: in a thread)."""
        try:
            for incoming in self.parts.values() if abort else ():
                incoming.abort()
            for job_id in set(self.groups.ids.values()) - keep:
                self.jobs.drop_upload(self.who, job_id)
        except StorageUnavailable as exc:  # the request's own answer is the one to give
            log.warning("batch upload left in storage: %s", exc)

    def close(self) -> None:
        for incoming in self.parts.values():
            incoming.close()


async def _read(
    request: Request, settings: Settings, intake: Intake
) -> tuple[JsonObject, list[tuple[str, bytes]], str]:
    """The batch's JSON, its script parts and the body's hash (for Idempotency-Key)."""
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        up, digest = await read_batch_multipart(request, settings, intake.receive)
        data = parse_part(up.batch, "batch")
        own = data.get("options") or {}
        if isinstance(own, dict):  # anything else is refused with the items
            data["options"] = merged(parse_part(up.options, "options"), own)
        for filename, (group, kind) in up.files.items():
            intake.groups.files[filename] = (group, kind, intake.parts[group, kind].path)
        return data, up.scripts, digest
    raw = bytearray()
    items = request.app.state.batches.max_items(intake.who)  # the tenant's (its key's)
    limit = min(settings.batch_max_bytes, settings.max_script_bytes * items)
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise HTTPException(413, f"the batch is over the limit of {limit} bytes")
    return parse_json(bytes(raw)), [], hashlib.sha256(raw).hexdigest()


@router.post("", status_code=202, response_model=BatchOut, openapi_extra=request_body(REQUEST_BODY))
async def create_batch(
    request: Request,
    response: Response,
    who: Tenant,
    jobs: Jobs,
    service: Batches,
    settings: CurrentSettings,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> BatchOut:
    """A batch from JSON ``{"items": [{"name", "spec" | "script", "options"?, "video"?}],
    "options"?, "preset"?, "partial"?}``, or multipart ``script`` parts (items named by their
    files), ``video``/``music`` parts paired by name (intro.mp4 with intro.md), ``take``
    parts paired likewise (intro.take-2.wav: segment 2 of intro), ``options`` (shared) and
    ``batch`` (that JSON, for overrides). Any item refused refuses the batch (422 naming each
    item) unless ``"partial": true``."""
    intake = Intake(jobs, who)
    try:
        data, scripts, digest = await _read(request, settings, intake)
        batch, created = await run_in_threadpool(
            _accept, service, intake, data, scripts, digest, idempotency_key
        )
    except BaseException:
        await run_in_threadpool(intake.drop, set(), True)
        raise
    finally:
        intake.close()
    kept = {item.job for item in batch.items} if created else set()
    await run_in_threadpool(intake.drop, kept, False)
    response.headers["Location"] = str(request.url_for("get_batch", batch_id=batch.id))
    return await run_in_threadpool(_view, request, service, batch)


def _accept(
    service: BatchService,
    intake: Intake,
    data: JsonObject,
    scripts: list[tuple[str, bytes]],
    digest: str,
    idempotency_key: str | None,
) -> tuple[Batch, bool]:
    """Parse, plan and store (in a worker thread: parsing, ffprobe and Redis block)."""
    items, partial = parse_items(data, scripts, intake.groups, intake.jobs.new_id)
    idem = (idempotency_key, digest) if idempotency_key else None
    return service.submit(intake.who, intake.jobs.new_id(), items, partial, idem)


def _view(request: Request, service: BatchService, batch: Batch) -> BatchOut:
    return batch_out(request, batch, service.jobs_of(batch))


@router.get("/{batch_id}", response_model=BatchOut)
def get_batch(request: Request, batch: OwnedBatch, service: Batches) -> BatchOut:
    return _view(request, service, batch)


@router.get("", response_model=BatchList)
def list_batches(
    request: Request,
    who: Tenant,
    service: Batches,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
) -> BatchList:
    found, nxt = service.page(who, limit, cursor)
    return BatchList(batches=[_view(request, service, b) for b in found], next_cursor=nxt)


class BatchCanceled(BaseModel):
    id: str
    canceled: int  # the items this cancel ended


@router.delete("/{batch_id}")
def cancel_batch(batch: OwnedBatch, service: Batches) -> BatchCanceled:
    """Cancel every unfinished item; finished ones keep their artifacts."""
    return BatchCanceled(id=batch.id, canceled=service.cancel(batch))


@router.get("/{batch_id}/artifacts.zip")
def batch_zip(batch: OwnedBatch, service: Batches) -> StreamingResponse:
    """Every item's published artifacts as ``<name>/<file>``, streamed as it is read."""
    return StreamingResponse(
        zip_stream(service.artifacts(batch)),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="batch-{batch.id}.zip"'},
    )

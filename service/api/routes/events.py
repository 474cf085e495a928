"""GET /v1/jobs/{id}/events: a job's progress as Server-Sent Events, read from the job store
(a Redis Stream per job), so any API process serves any job. A ``snapshot`` event (the job
as GET /v1/jobs/{id} shows it, no id) opens the stream; then every change after
``Last-Event-ID`` (header, or ``?last_event_id=``) with its id; the stream closes after the
terminal status event. A ``: heartbeat`` comment keeps quiet connections alive."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from service.api.deps import CurrentSettings, Jobs, OwnedJob
from service.api.views import ERRORS, job_out
from service.config import Settings
from service.domain.errors import StoreUnavailable
from service.domain.job import TERMINAL, Job
from service.jobs import JobService

log = logging.getLogger("narrate.api")
router = APIRouter(prefix="/v1/jobs", responses=ERRORS)
EVENT_ID = r"^[0-9]{1,20}-[0-9]{1,20}$"


def sse(event: str, data: Any, event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


STREAM: dict[int | str, dict[str, Any]] = {
    200: {"description": "the job's events", "content": {"text/event-stream": {}}}
}


@router.get("/{job_id}/events", response_class=StreamingResponse, responses=STREAM)
async def job_events(
    request: Request,
    job: OwnedJob,
    service: Jobs,
    settings: CurrentSettings,
    last_event_id: Annotated[str | None, Header(pattern=EVENT_ID)] = None,
    resume: Annotated[str | None, Query(alias="last_event_id", pattern=EVENT_ID)] = None,
) -> StreamingResponse:
    """The job's events as text/event-stream: ``snapshot``, then ``status``, ``update``
    (stage, stage_progress, warnings...) and ``segment`` (one segment's state) with ids."""
    state = request.app.state
    if getattr(state, "event_streams", 0) >= settings.max_event_streams:
        raise HTTPException(503, "too many open event streams", headers={"Retry-After": "5"})
    snapshot = job_out(request, job).model_dump(mode="json")
    after = last_event_id or resume or "0-0"
    body = _follow(request, service, settings, job, snapshot, after)
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _follow(
    request: Request,
    service: JobService,
    settings: Settings,
    job: Job,
    snapshot: dict[str, Any],
    after: str,
) -> AsyncIterator[str]:
    """Events until the terminal one (or the job is gone, or the store fails: the client
    reconnects with Last-Event-ID and misses nothing)."""
    state = request.app.state
    state.event_streams = getattr(state, "event_streams", 0) + 1
    try:
        yield "retry: 2000\n" + sse("snapshot", snapshot)
        done = job.terminal  # a finished job's remaining events are all there already
        beat = time.monotonic()
        while True:
            batch = await run_in_threadpool(service.events, job.id, after)
            for event in batch:
                yield sse(event.event, event.data, event.id)
                after = event.id
                if event.event == "status" and event.data.get("status") in TERMINAL:
                    return
            if batch:
                beat = time.monotonic()
                continue
            if done:
                return
            if time.monotonic() - beat >= settings.events_heartbeat:
                yield ": heartbeat\n\n"
                beat = time.monotonic()
                status = await run_in_threadpool(service.store.status, job.id)
                done = status is None or status in TERMINAL
            await anyio.sleep(settings.events_poll)
    except StoreUnavailable as exc:
        log.warning("job %s: event stream ended: %s", job.id, exc)
    finally:
        state.event_streams -= 1

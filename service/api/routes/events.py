"""GET /v1/jobs/{id}/events: a job's progress as Server-Sent Events, read from the job store
(a Redis Stream per job), so any API process serves any job. A ``snapshot`` event (the job
as GET /v1/jobs/{id} shows it, no id) opens the stream; then every change after
``Last-Event-ID`` (header, or ``?last_event_id=``) with its id; the stream closes after the
terminal status event. A ``: heartbeat`` comment keeps quiet connections alive."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from service.api.deps import CurrentSettings, Jobs, OwnedJob
from service.api.views import ERRORS, job_out
from service.api.wire_types import answers
from service.config import Settings
from service.domain.errors import StoreUnavailable
from service.domain.job import TERMINAL
from service.domain.wire import JsonObject
from service.ports import JobEvent

log = logging.getLogger("narrate.api")
router = APIRouter(prefix="/v1/jobs", responses=ERRORS)
EVENT_ID = r"^[0-9]{1,20}-[0-9]{1,20}$"


def resume_after(
    last_event_id: Annotated[str | None, Header(pattern=EVENT_ID)] = None,
    resume: Annotated[str | None, Query(alias="last_event_id", pattern=EVENT_ID)] = None,
) -> str | None:
    """The event a reconnecting client saw last: the ``Last-Event-ID`` header (an
    EventSource sends it), else ``?last_event_id=`` (for clients that cannot set headers)."""
    return last_event_id or resume


# A stream's parameter: where it resumes (None: from the start). A route takes it before the
# owner's dependency, so /openapi.json lists its header before Authorization, as it always has.
ResumeAfter = Annotated[str | None, Depends(resume_after)]


def sse(event: str, data: Any, event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


STREAM = answers({200: {"description": "the job's events", "content": {"text/event-stream": {}}}})


def take_room(request: Request, settings: Settings, tenant: str) -> Callable[[], None]:
    """Count one more open stream for this process and for ``tenant``, or 503 past
    NARRATE_MAX_EVENT_STREAMS (the process) or NARRATE_MAX_EVENT_STREAMS_PER_TENANT. Checked
    and counted in one step of the event loop (no await between): the count used to be taken
    when the stream began, so streams opened at once all passed the check. Returns the
    release (idempotent: the stream's end and the response's end both call it)."""
    state = request.app.state
    per_tenant: Counter[str] = getattr(state, "tenant_streams", None) or Counter()
    state.tenant_streams = per_tenant
    if getattr(state, "event_streams", 0) >= settings.max_event_streams:
        raise HTTPException(503, "too many open event streams", headers={"Retry-After": "5"})
    if per_tenant[tenant] >= settings.max_event_streams_per_tenant:
        raise HTTPException(
            503,
            f"too many open event streams for tenant {tenant}: the limit "
            f"(NARRATE_MAX_EVENT_STREAMS_PER_TENANT) is {settings.max_event_streams_per_tenant}",
            headers={"Retry-After": "5"},
        )
    state.event_streams = getattr(state, "event_streams", 0) + 1
    per_tenant[tenant] += 1
    held = [True]

    def release() -> None:
        if held.pop() if held else False:
            state.event_streams -= 1
            per_tenant[tenant] -= 1

    return release


def streamed(body: AsyncIterator[str], release: Callable[[], None]) -> StreamingResponse:
    """The stream; its room released when it ends, or when the response does (a client gone
    before the body began never runs the body's own ``finally``)."""
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        background=BackgroundTask(release),
    )


@router.get("/{job_id}/events", response_class=StreamingResponse, responses=STREAM)
async def job_events(
    request: Request,
    after: ResumeAfter,
    job: OwnedJob,
    service: Jobs,
    settings: CurrentSettings,
) -> StreamingResponse:
    """The job's events as text/event-stream: ``snapshot``, then ``status``, ``update``
    (stage, stage_progress, warnings...) and ``segment`` (one segment's state) with ids."""
    snapshot = job_out(request, job).model_dump(mode="json")

    def ended() -> bool:
        status = service.store.records.status(job.id)
        return status is None or status in TERMINAL

    def last(event: JobEvent) -> bool:
        return event.event == "status" and event.data.get("status") in TERMINAL

    release = take_room(request, settings, job.tenant)  # last: nothing can fail after it
    reader = Follow(
        lambda after: service.events(job.id, after), ended, last, f"job {job.id}", release
    )
    return streamed(
        follow(request, settings, reader, snapshot, job.terminal, after),
        release,
    )


@dataclass(frozen=True, slots=True)
class Follow:
    """What a stream follows: its events after an id, whether its subject has ended, which
    event is its last, and its name (for the log)."""

    read: Callable[[str], list[JobEvent]]
    ended: Callable[[], bool]
    last: Callable[[JobEvent], bool]
    what: str
    release: Callable[[], None]  # the stream's room (take_room)


async def follow(
    request: Request,
    settings: Settings,
    reader: Follow,
    snapshot: JsonObject,
    done: bool,
    after: str | None,
) -> AsyncIterator[str]:
    """A ``snapshot``, then the events after ``after`` until the last one (or the subject
    is gone or ended with no more to say, or the store fails: the client reconnects with
    Last-Event-ID and misses nothing). ``done``: ended already at the snapshot, so its
    remaining events are all there."""
    after = after or "0-0"
    try:
        yield "retry: 2000\n" + sse("snapshot", snapshot)
        beat = time.monotonic()
        while True:
            batch = await run_in_threadpool(reader.read, after)
            for event in batch:
                yield sse(event.event, event.data, event.id)
                after = event.id
                if reader.last(event):
                    return
            if batch:
                beat = time.monotonic()
                continue
            if done:
                return
            if time.monotonic() - beat >= settings.events_heartbeat:
                yield ": heartbeat\n\n"
                beat = time.monotonic()
                done = await run_in_threadpool(reader.ended)
            await anyio.sleep(settings.events_poll)
    except StoreUnavailable as exc:
        log.warning("%s: event stream ended: %s", reader.what, exc)
    finally:
        reader.release()

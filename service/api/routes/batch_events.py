"""GET /v1/batches/{id}/events: a batch's progress as Server-Sent Events, like a job's
(routes/events.py): a ``snapshot`` (the batch as GET /v1/batches/{id} shows it), then each
``item`` event (an item's job started a stage, or ended: its id, status and stage or error
code) with its id, resumable with ``Last-Event-ID``, ``: heartbeat`` comments, and closed
after ``completed`` (every item ended: the counts and each item's status)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from service.api.batch_views import batch_out
from service.api.deps import CurrentSettings
from service.api.routes.batches import Batches, OwnedBatch
from service.api.routes.events import STREAM, Follow, ResumeAfter, follow, streamed, take_room
from service.api.views import ERRORS
from service.domain.job import TERMINAL
from service.ports import JobEvent

router = APIRouter(prefix="/v1/batches", responses=ERRORS)


@router.get("/{batch_id}/events", response_class=StreamingResponse, responses=STREAM)
async def batch_events(
    request: Request,
    after: ResumeAfter,
    batch: OwnedBatch,
    service: Batches,
    settings: CurrentSettings,
) -> StreamingResponse:
    """The batch's events as text/event-stream: ``snapshot``, ``item`` events, ``completed``."""
    view = await run_in_threadpool(lambda: batch_out(request, batch, service.jobs_of(batch)))

    def ended() -> bool:
        return all(job is None or job.status in TERMINAL for _, job in service.jobs_of(batch))

    def last(event: JobEvent) -> bool:
        return event.event == "completed"

    # Ended with its ``completed`` event written: every event is there. Its items can all
    # have ended a moment before the worker writes ``completed``: then the stream waits for
    # it (or, should it never come, closes after a heartbeat's quiet and ``ended``).
    done = view.status in TERMINAL and await run_in_threadpool(
        lambda: any(last(e) for e in service.jobs.batch_events(batch.id, "0-0"))
    )
    release = take_room(request, settings, batch.tenant)  # last: nothing can fail after it
    reader = Follow(
        lambda after: service.jobs.batch_events(batch.id, after),
        ended,
        last,
        f"batch {batch.id}",
        release,
    )
    return streamed(
        follow(request, settings, reader, view.model_dump(mode="json"), done, after),
        release,
    )

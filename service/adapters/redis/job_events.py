"""A job's change events as a Redis Stream, so any API process can follow any job
(GET /v1/jobs/{id}/events). Key: ``narrate:job:<id>:events``, capped near EVENTS_MAX
entries, expiring EVENTS_TTL seconds after its last write (and removed with the job)."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import to_jsonable_python

from service.adapters.redis.keys import job_events
from service.domain.job import stream_after
from service.domain.wire import JsonObject
from service.ports.jobs import JobEvent

EVENTS_MAX = 500
EVENTS_TTL = 7 * 86400


def events_key(job_id: str) -> str:
    return job_events(job_id)


class JobEventLog:
    """The store's side of job events; ``r`` is the store's Redis client."""

    r: Any

    def publish(self, job_id: str, event: str, data: JsonObject) -> None:
        pipe = self.r.pipeline(transaction=True)
        self.publish_on(pipe, job_id, event, data)
        pipe.execute()

    @staticmethod
    def publish_on(pipe: Any, job_id: str, event: str, data: JsonObject) -> None:
        """The event's writes queued on ``pipe`` (many jobs' events in one round trip)."""
        payload = json.dumps(to_jsonable_python(data), ensure_ascii=False)
        pipe.xadd(
            events_key(job_id),
            {"event": event, "data": payload},
            maxlen=EVENTS_MAX,
            approximate=True,
        )
        pipe.expire(events_key(job_id), EVENTS_TTL)

    def events(self, job_id: str, after: str = "0-0", count: int = 100) -> list[JobEvent]:
        """The events after id ``after`` (oldest first, at most ``count``); never blocks."""
        reply = self.r.xread({events_key(job_id): stream_after(after)}, count=count)
        out: list[JobEvent] = []
        for _stream, entries in reply or []:
            for entry_id, fields in entries:
                out.append(JobEvent(entry_id, fields["event"], json.loads(fields["data"])))
        return out

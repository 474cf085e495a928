"""Job events in this process's memory: jobevents.py's Redis Stream as a list per job, with
ids of the same shape ("<ms>-<n>", increasing), for the fast tier."""

from __future__ import annotations

import json
import threading
import time

from pydantic_core import to_jsonable_python

from service.adapters.redis.job_events import EVENTS_MAX
from service.domain.job import stream_after
from service.domain.wire import JsonObject
from service.ports.jobs import JobEvent


def _order(event_id: str) -> tuple[int, int]:
    ms, _, n = (event_id or "0-0").partition("-")
    return int(ms), int(n or 0)


class MemoryEventLog:
    def __init__(self) -> None:
        self._events_lock = threading.Lock()
        self._events: dict[str, list[JobEvent]] = {}
        self._last = (0, 0)

    def publish(self, job_id: str, event: str, data: JsonObject) -> None:
        copied = json.loads(json.dumps(to_jsonable_python(data), ensure_ascii=False))
        with self._events_lock:
            ms = int(time.time() * 1000)
            self._last = (ms, 0) if ms > self._last[0] else (self._last[0], self._last[1] + 1)
            log = self._events.setdefault(job_id, [])
            log.append(JobEvent(f"{self._last[0]}-{self._last[1]}", event, copied))
            del log[:-EVENTS_MAX]

    def events(self, job_id: str, after: str = "0-0", count: int = 100) -> list[JobEvent]:
        with self._events_lock:
            since = _order(stream_after(after))
            return [e for e in self._events.get(job_id, []) if _order(e.id) > since][:count]

    def forget_events(self, job_id: str) -> None:
        with self._events_lock:
            self._events.pop(job_id, None)

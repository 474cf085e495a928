"""The job store, queue and metrics in this process's memory: the same contracts as the Redis
ones (jobstore.py, queue.py, metrics.py), for the fast test tier and for trying the API
without a Redis. Nothing survives the process, and a queue's tasks run only when ``drain``
is called (there are no workers): a test decides when the fleet works.

The rules the Redis scripts enforce hold here too, under one lock: a job is stored with its
first tasks in one step, the Idempotency-Key maps a body to one job, status only moves
forward, a segment counts done once and only the last one reports it."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from service.adapters.memory.events import MemoryEventLog
from service.adapters.memory.idem import IdempotencyKeys
from service.adapters.memory.queue import MemoryQueue
from service.domain.job import Job, JobFilter, JobStatus, SegmentRecord, page_cursor, parse_cursor
from service.domain.job_changes import JobUpdate, SegmentUpdate, Transition
from service.domain.job_record import read_segment, segment_json, write_segment
from service.domain.wire import JsonObject
from service.ports import Fleet, NewJob

Task = tuple[str, list[Any]]


class MemoryJobStore(MemoryEventLog):
    """Job records as JobStore keeps them in Redis, in dictionaries; the fleet is this
    process, always alive (``drain`` is its one worker)."""

    def __init__(self, queue: MemoryQueue | None = None) -> None:
        self.queue = queue
        self._lock = threading.RLock()
        self._jobs: dict[str, Job] = {}
        self._done: dict[str, set[int]] = {}
        self._remaining: dict[str, int] = {}
        self._deliveries: dict[str, dict[str, int]] = {}
        self._idem = IdempotencyKeys()
        self._active: set[str] = set()
        MemoryEventLog.__init__(self)

    def ping(self) -> bool:
        return True

    def create(self, new: NewJob) -> tuple[Job, bool]:
        job = new.job
        with self._lock:
            made = self._idem.claim(job.tenant, new.idem, job.id, self._jobs)
            if made is not None:
                return self._copy(made), False
            stored = copy.deepcopy(job)
            stored.status = JobStatus.QUEUED
            stored.segments = {i: SegmentRecord() for i in range(job.segments_total)}
            self._jobs[job.id] = stored
            self._remaining[job.id] = job.segments_total
            self._active.add(job.id)
            if new.messages and self.queue is not None:
                self.queue.push_encoded(list(new.messages), new.queue or None)
        return job, True

    def discard(self, job: Job) -> None:
        with self._lock:
            self._jobs.pop(job.id, None)
            for table in (self._done, self._remaining, self._deliveries):
                table.pop(job.id, None)
            self._active.discard(job.id)
            self.forget_events(job.id)
            self._idem.forget(job.id)

    def _copy(self, job_id: str) -> Job:
        return copy.deepcopy(self._jobs[job_id])

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._copy(job_id) if job_id in self._jobs else None

    def get_many(self, job_ids: Sequence[str]) -> list[Job | None]:
        with self._lock:  # one consistent read, as the Redis store's one round trip
            return [self._copy(j) if j in self._jobs else None for j in job_ids]

    def status(self, job_id: str) -> JobStatus | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return job.status if job is not None else None

    def page(
        self, tenant: str, where: JobFilter | str | None, limit: int, cursor: str | None
    ) -> tuple[list[Job], str | None]:
        """Newest first by (creation ms, id); ``cursor`` as the Redis store's."""
        below, keep = parse_cursor(cursor), JobFilter.of(where)
        with self._lock:
            mine = sorted(
                (
                    (int(j.created * 1000), j.id, j)
                    for j in self._jobs.values()
                    if j.tenant == tenant
                ),
                key=lambda t: t[:2],
                reverse=True,
            )
            out = [
                (ms, job_id, copy.deepcopy(j))
                for ms, job_id, j in mine
                if (below is None or ms < below[0] or (ms == below[0] and job_id < below[1]))
                and keep.matches(j)
            ][:limit]
        last = page_cursor(*out[-1][:2]) if len(out) == limit else None
        return [j for _, _, j in out], last

    def sweeping(self) -> MemorySweep:
        return MemorySweep(self)

    def active(self) -> list[str]:
        with self._lock:
            return sorted(self._active)

    def forget_active(self, job_id: str) -> None:
        with self._lock:
            self._active.discard(job_id)

    def done_segments(self, job_id: str) -> set[int]:
        with self._lock:
            return set(self._done.get(job_id, set()))

    def advance(self, job_id: str, to: Transition) -> bool:
        """Move the job forward to ``to.status`` (never back, never out of a terminal state)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or not to.allowed(job.status):
                return False
            to.apply(job, time.time())
            if job.terminal:
                self._active.discard(job_id)
            self.publish(job_id, "status", to.event())
            return True

    def advance_many(self, job_ids: Sequence[str], to: Transition) -> list[bool]:
        return [self.advance(j, to) for j in job_ids]

    def update(self, job_id: str, change: JobUpdate) -> None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:  # Redis's HSET would leave a stray field: nothing reads it
                change.apply(job, time.time())
                self.publish(job_id, "update", change.fields())

    def set_segment(self, job_id: str, index: int, change: SegmentUpdate) -> None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                current = job.segments.get(index) or SegmentRecord()
                # Through the stored JSON, as Redis keeps it (the same codec reads it back).
                segment = read_segment(write_segment(change.applied(current)))
                job.segments[index] = segment
                job.updated = time.time()
                self.publish(job_id, "segment", {**segment_json(segment), "index": index + 1})

    def deliveries(self, job_id: str, task: str) -> int:
        with self._lock:
            counts = self._deliveries.setdefault(job_id, {})
            counts[task] = counts.get(task, 0) + 1
            return counts[task]

    def delivered(self, job_id: str, task: str) -> int:
        with self._lock:
            return self._deliveries.get(job_id, {}).get(task, 0)

    def segment_done(self, job_id: str, index: int) -> bool:
        with self._lock:
            done = self._done.setdefault(job_id, set())
            if index in done:
                return False
            done.add(index)
            self._remaining[job_id] = self._remaining.get(job_id, 0) - 1
            return self._remaining[job_id] == 0

    def push_first(self, queue: str, message: str) -> None:
        if self.queue is not None:
            self.queue.push_first(message)

    # -- the fleet: one worker, this process, never dead ----------------------------------
    def beat(self, worker: str, held: Iterable[str]) -> None:
        pass

    def leave(self, worker: str) -> None:
        pass

    def announce(self, worker: str, storage: str) -> None:
        pass  # one process: the API's storage is the worker's

    def fleet(self, dead_after: float) -> Fleet:
        return Fleet(["memory"], [], "memory", 0.0)  # the fleet's drain dispatches

    def hand_back(self, worker: str, queue: str, dead_after: float | None) -> int:
        return 0

    def hand_back_orphans(self, queue: str, older_than: float) -> int:
        return 0  # the memory queue hands out nothing it could lose

    def broker_messages(self, queue: str) -> list[JsonObject]:
        if self.queue is None or queue != self.queue.name:
            return []
        return [{"task": name, "args": args} for name, args in list(self.queue.pending)]


class MemorySweep:
    """Retention's view of the memory store: nothing is ever left without its record here
    (``discard`` removes everything at once), so there are no strays."""

    def __init__(self, store: MemoryJobStore) -> None:
        self.store = store

    def created_before(self, cutoff: float) -> list[tuple[str, str]]:
        with self.store._lock:
            return [(j.tenant, j.id) for j in self.store._jobs.values() if j.created < cutoff]

    def existing(self, job_ids: Iterable[str]) -> set[str]:
        with self.store._lock:
            return {i for i in job_ids if i in self.store._jobs}

    def strays(self) -> tuple[list[str], list[tuple[str, str]]]:
        return [], []

    def remove(self, keys: list[str], entries: list[tuple[str, str]]) -> None:
        pass

"""Job records in Redis: spec, state, per-segment state, timings, owner. (The record's
shape is service/domain/job.py; the scripts are redis_scripts.py; metrics are metrics.py.)

Keys (prefix ``narrate:``):
  job:<id>              hash: the job record
  job:<id>:seg          hash: segment index -> JSON state
  job:<id>:done         set of finished segment indexes (so a redelivery counts once)
  job:<id>:remaining    counter; the segment that takes it to 0 enqueues finalize
  job:<id>:deliveries   hash: task -> times delivered
  tenant:<t>:jobs       sorted set of job ids by creation time (ms)
  idem:<t>:<key>        "<body hash> <job id>" for Idempotency-Key
  active                set of job ids not yet terminal (for the reconciler and metrics)
  workers, workers:held the fleet's heartbeats (fleet.py)
  metrics:jobs          hash: state -> jobs in it, moved by the same scripts as the jobs
  metrics:tenants       hash: "<tenant> queued|running" -> jobs, for the quotas (same scripts)
  quota:<t>:bucket      hash: the tenant's submissions token bucket (expires in a minute)
  lanes, lane:<t>       the tenants with work, and each one's waiting tasks (lanes.py)

A job is created in one Lua script: the idempotency key, the record and the job's first queue
messages together, so no other process sees a key without its job, and the broker never holds
a task whose record is missing. The script refuses to run after a deadline (Redis's own clock):
when a call times out on a hung Redis and the API answers 503, the buffered script, executed
once Redis resumes, changes nothing, so a 503 always means the job will never run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, TypedDict

import redis

from service.adapters.redis.errors import store_errors
from service.adapters.redis.fleet import FleetStore
from service.adapters.redis.idem import made_before
from service.adapters.redis.job_events import JobEventLog
from service.adapters.redis.job_read import JobReads
from service.adapters.redis.job_sweep import JobSweep
from service.adapters.redis.keys import JOB_COUNTS, LANES, TENANT_COUNTS, key
from service.adapters.redis.scripts import (
    ADVANCE,
    BEAT,
    COUNT_IF_JOB,
    CREATE,
    DISCARD,
    SEGMENT_DONE,
    SEGMENT_STATE,
    TOUCH,
    UPDATE_IF_JOB,
)
from service.domain.errors import StoreUnavailable
from service.domain.job import Job, JobFilter, JobStatus, page_cursor, parse_cursor
from service.domain.job_changes import JobUpdate, SegmentUpdate, Transition
from service.domain.job_record import (
    FieldValue,
    field_value,
    new_record,
    read_segment,
    segment_json,
    write_segment,
)
from service.ports.jobs import NewJob


@store_errors
class JobStore(JobReads, FleetStore, JobEventLog):
    """Every method raises StoreUnavailable for a Redis error (``store_errors``)."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client  # redis-py's stubs type replies as bytes | str; ours are str
        self._beat = client.register_script(BEAT)
        self._advance = client.register_script(ADVANCE)
        self._touch = client.register_script(TOUCH)
        self._create = client.register_script(CREATE)
        self._discard = client.register_script(DISCARD)
        self._segment_state = client.register_script(SEGMENT_STATE)
        self._segment_done = client.register_script(SEGMENT_DONE)
        self._count = client.register_script(COUNT_IF_JOB)
        self._update = client.register_script(UPDATE_IF_JOB)

    @classmethod
    def from_url(cls, url: str, timeout: float = 5.0, connect_timeout: float = 3.0) -> JobStore:
        """A store whose every call gives up after ``timeout`` s: a hung Redis costs a
        request that long, never longer."""
        from service.adapters.redis import url as redis_url

        return cls(redis_url.client(url, timeout, connect_timeout))

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    # -- creation -------------------------------------------------------------------------
    def create(self, new: NewJob) -> tuple[Job, bool]:
        """Store a new job and push its queue ``messages`` onto ``queue``, in one atomic step,
        unless ``idem`` (key, body hash) names an existing job: then return that job and
        False. A key reused with another body raises IdempotencyConflict.

        The script must run within ``budget`` seconds of now by Redis's own clock (read
        first, so the API host's clock does not matter); later, it writes nothing and
        JobStoreLate is raised. Keep ``budget`` under the socket timeout: a call that timed
        out then can never take effect afterwards."""
        job, idem, messages = new.job, new.idem, list(new.messages)
        seconds, micros = self.r.time()
        deadline_ms = int(seconds) * 1000 + int(micros) // 1000 + int(new.budget * 1000)
        record = new_record(job, idem[0] if idem else "")
        args: list[Any] = [
            deadline_ms,
            f"{idem[1]} {job.id}" if idem else "",
            key("job", ""),
            86400,
            len(record),
        ]
        for k, v in record.items():
            args += [k, v]
        args += [job.segments_total, len(messages), *messages]
        keys = [
            key("job", job.id),
            key("job", job.id, "remaining"),
            key("job", job.id, "seg"),
            key("tenant", job.tenant, "jobs"),
            key("active"),
            new.queue or key("unused"),
            key("idem", job.tenant, idem[0]) if idem else "",
            JOB_COUNTS,
            TENANT_COUNTS,
            LANES,
        ]
        outcome = self._create(keys=keys, args=args)
        if outcome[0] == "late":
            raise JobStoreLate(f"job {job.id} reached the store after its deadline")
        made = made_before(outcome, idem)
        if made is None:
            return job, True
        found = self.get(made)
        if found is None:  # the client may retry
            raise JobStoreLate(f"job {made} was deleted meanwhile")
        return found, False

    def discard(self, job: Job) -> None:
        """Remove every trace of a job (its enqueue failed, or it was deleted)."""
        keys = [key("job", job.id) + s for s in ("", ":seg", ":done", ":remaining", ":deliveries")]
        keys += [key("tenant", job.tenant, "jobs"), key("active"), JOB_COUNTS, TENANT_COUNTS]
        self._discard(keys=keys, args=[job.id, key("idem", job.tenant, "")])
        self.r.delete(key("job", job.id, "events"))

    # -- reading --------------------------------------------------------------------------
    def status(self, job_id: str) -> JobStatus | None:
        status: str | None = self.r.hget(key("job", job_id), "status")
        return JobStatus(status) if status else None

    def page(
        self, tenant: str, where: JobFilter | str | None, limit: int, cursor: str | None
    ) -> tuple[list[Job], str | None]:
        """Newest first, by (creation ms, id): a total order, so jobs made in the same
        millisecond are neither skipped nor repeated. ``cursor`` is the last job a page
        ended on (``<ms>:<id>``, see page_cursor); a bare ``<ms>`` (the cursor's earlier
        shape) continues below that millisecond."""
        below, keep = parse_cursor(cursor), JobFilter.of(where)
        zkey = key("tenant", tenant, "jobs")
        hi = "+inf" if below is None else str(below[0])
        out: list[Job] = []
        next_cursor = None
        offset = 0
        while len(out) < limit:
            batch = self.r.zrevrangebyscore(
                zkey, hi, "-inf", start=offset, num=limit * 2, withscores=True
            )
            if not batch:
                break
            offset += len(batch)
            found = self.get_many([job_id for job_id, _ in batch])  # one round trip a page
            for (job_id, score), job in zip(batch, found, strict=True):
                # Members of one score come in reverse lexical order: skip down to the cursor.
                if below is not None and int(score) == below[0] and job_id >= below[1]:
                    continue
                if job and keep.matches(job):
                    out.append(job)
                    if len(out) == limit:
                        next_cursor = page_cursor(int(score), job_id)
                        break
        return out, next_cursor

    def sweeping(self) -> JobSweep:
        """The store's side of retention: old jobs, stray keys (service/jobs/retention.py)."""
        return JobSweep(self.r, key)

    def active(self) -> list[str]:
        return sorted(self.r.smembers(key("active")))

    def forget_active(self, job_id: str) -> None:
        self.r.srem(key("active"), job_id)

    def done_segments(self, job_id: str) -> set[int]:
        return {int(i) for i in self.r.smembers(key("job", job_id, "done"))}

    # -- state changes --------------------------------------------------------------------
    def advance(self, job_id: str, to: Transition) -> bool:
        """Move the job forward to ``to.status`` (never back, never out of a terminal state)."""
        moved = bool(self._advance(**_advancing(job_id, to)))
        if moved:
            self.publish(job_id, "status", to.event())
        return moved

    def advance_many(self, job_ids: Sequence[str], to: Transition) -> list[bool]:
        """``advance`` for many jobs in two round trips: the scripts pipelined, then the
        moved jobs' events (a batch cancel wrote two round trips a job, each fsynced)."""
        if not job_ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for job_id in job_ids:
            self._advance(**_advancing(job_id, to), client=pipe)
        moved = [bool(m) for m in pipe.execute()]
        events = self.r.pipeline(transaction=False)
        for job_id in (j for j, ok in zip(job_ids, moved, strict=True) if ok):
            self.publish_on(events, job_id, "status", to.event())
        events.execute()
        return moved

    def update(self, job_id: str, change: JobUpdate) -> None:
        """Set fields of an existing record (a deleted job's record is never brought back)."""
        fields = change.fields()
        args: list[Any] = ["updated", time.time()]
        for k, v in fields.items():
            args += [k, field_value(v)]
        if self._update(keys=[key("job", job_id)], args=args):
            self.publish(job_id, "update", fields)

    def set_segment(self, job_id: str, index: int, change: SegmentUpdate) -> None:
        hkey = key("job", job_id, "seg")
        segment = change.applied(read_segment(self.r.hget(hkey, str(index))))
        # Marks progress too, for the reconciler; only while the job exists.
        args: list[str | float] = [str(index), write_segment(segment), time.time()]
        if self._segment_state(keys=[key("job", job_id), hkey], args=args):
            self.publish(job_id, "segment", {**segment_json(segment), "index": index + 1})

    def deliveries(self, job_id: str, task: str) -> int:
        """Count one more delivery of ``task``; a task that keeps killing workers is capped.
        0: the job is gone."""
        keys = [key("job", job_id), key("job", job_id, "deliveries")]
        return int(self._count(keys=keys, args=[task]))

    def delivered(self, job_id: str, task: str) -> int:
        return int(self.r.hget(key("job", job_id, "deliveries"), task) or 0)

    def push_first(self, queue: str, message: str) -> None:
        """kombu's Redis transport pushes on the left and workers BRPOP from the right: a
        message pushed on the right is the next one taken."""
        self.r.rpush(queue, message)

    def segment_done(self, job_id: str, index: int) -> bool:
        """Record segment ``index`` finished; True for exactly one call: the last segment.
        A segment of a deleted job counts nothing (and recreates no key)."""
        keys = [key("job", job_id), key("job", job_id, "done"), key("job", job_id, "remaining")]
        return int(self._segment_done(keys=keys, args=[index])) == 0


class JobStoreLate(StoreUnavailable):
    """The create script reached Redis after its deadline (or not at all): nothing was kept.
    An unavailable store, so every caller that handles one handles this."""


class ScriptCall(TypedDict):
    """A registered Lua script's keywords (redis-py's Script.__call__): KEYS and ARGV."""

    keys: list[str]
    args: list[FieldValue]


def _advancing(job_id: str, to: Transition) -> ScriptCall:
    """The ADVANCE script's keys and args for one job."""
    args: list[FieldValue] = [to.status.value, "updated", time.time()]
    for k, v in to.fields().items():
        args += [k, field_value(v)]
    args.append(job_id)
    return {"keys": [key("job", job_id), key("active"), JOB_COUNTS, TENANT_COUNTS], "args": args}

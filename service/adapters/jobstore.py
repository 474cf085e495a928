"""Job records in Redis: spec, state, per-segment state, timings, owner.

Keys (prefix ``narrate:``):
  job:<id>              hash: the job record
  job:<id>:seg          hash: segment index -> JSON state
  job:<id>:done         set of finished segment indexes (so a redelivery counts once)
  job:<id>:remaining    counter; the segment that takes it to 0 enqueues finalize
  job:<id>:deliveries   hash: task -> times delivered
  tenant:<t>:jobs       sorted set of job ids by creation time (ms)
  idem:<t>:<key>        "<body hash> <job id>" for Idempotency-Key
  active                set of job ids not yet terminal (for the reconciler and metrics)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import redis

PREFIX = "narrate:"
TERMINAL = ("succeeded", "failed", "canceled")
STATES = ("queued", "running", *TERMINAL)
_ORDER = {"queued": 0, "running": 1, "succeeded": 2, "failed": 2, "canceled": 2}

# Status only moves forward, and never out of a terminal state: one atomic script.
_ADVANCE = """
local order = {queued=0, running=1, succeeded=2, failed=2, canceled=2}
local cur = redis.call('HGET', KEYS[1], 'status')
if not cur then return 0 end
if order[cur] >= 2 or order[ARGV[1]] < order[cur] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], unpack(ARGV, 2, #ARGV - 1))
if order[ARGV[1]] >= 2 then redis.call('SREM', KEYS[2], ARGV[#ARGV]) end
return 1
"""

# Mark progress, but never recreate the record of a job deleted meanwhile.
_TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'updated', ARGV[1]) end
"""


@dataclass
class Job:
    id: str
    tenant: str
    status: str
    created: float
    updated: float
    spec: dict[str, Any]
    options: dict[str, Any]
    has_video: bool
    segments_total: int
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    stage: str = ""
    stage_progress: float = 0.0
    segments: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def progress(self) -> float:
        if self.status == "succeeded":
            return 1.0
        done = sum(1 for s in self.segments.values() if s.get("state") == "done")
        frac = 0.7 * done / max(1, self.segments_total)
        return round(max(frac, self.stage_progress), 4)


def _key(*parts: str) -> str:
    return PREFIX + ":".join(parts)


class JobStore:
    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client  # redis-py's stubs type replies as bytes | str; ours are str
        self._advance = client.register_script(_ADVANCE)
        self._touch = client.register_script(_TOUCH)

    @classmethod
    def from_url(cls, url: str) -> JobStore:
        return cls(
            redis.Redis.from_url(
                url, decode_responses=True, socket_timeout=5, socket_connect_timeout=3
            )
        )

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    # -- creation -------------------------------------------------------------------------
    def create(self, job: Job, idem: tuple[str, str] | None = None) -> tuple[Job, bool]:
        """Store a new job, unless ``idem`` (key, body hash) names an existing one: then
        return that job and False. A key reused with another body raises IdempotencyConflict."""
        if idem is not None:
            key = _key("idem", job.tenant, idem[0])
            if not self.r.set(key, f"{idem[1]} {job.id}", nx=True, ex=86400):
                stored = self.r.get(key) or ""
                body_hash, _, existing = stored.partition(" ")
                if body_hash != idem[1]:
                    raise IdempotencyConflict(idem[0])
                found = self.get(existing)
                if found is not None:
                    return found, False
                self.r.set(key, f"{idem[1]} {job.id}", ex=86400)
        record: dict[str | bytes, bytes | float | int | str] = {
            "id": job.id,
            "tenant": job.tenant,
            "status": "queued",
            "created": job.created,
            "updated": job.created,
            "spec": json.dumps(job.spec, ensure_ascii=False),
            "options": json.dumps(job.options),
            "has_video": int(job.has_video),
            "segments_total": job.segments_total,
            "warnings": json.dumps(job.warnings, ensure_ascii=False),
            "idem": idem[0] if idem else "",
        }
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(_key("job", job.id), mapping=record)
        pipe.set(_key("job", job.id, "remaining"), job.segments_total)
        pipe.hset(
            _key("job", job.id, "seg"),
            mapping={str(i): json.dumps({"state": "queued"}) for i in range(job.segments_total)},
        )
        pipe.zadd(_key("tenant", job.tenant, "jobs"), {job.id: int(job.created * 1000)})
        pipe.sadd(_key("active"), job.id)
        pipe.execute()
        return job, True

    def discard(self, job: Job) -> None:
        """Remove every trace of a job (its enqueue failed, or it was deleted)."""
        idem = self.r.hget(_key("job", job.id), "idem")
        pipe = self.r.pipeline(transaction=True)
        for suffix in ("", ":seg", ":done", ":remaining", ":deliveries"):
            pipe.delete(_key("job", job.id) + suffix)
        pipe.zrem(_key("tenant", job.tenant, "jobs"), job.id)
        pipe.srem(_key("active"), job.id)
        if idem:
            pipe.delete(_key("idem", job.tenant, idem))
        pipe.execute()

    # -- reading --------------------------------------------------------------------------
    def get(self, job_id: str) -> Job | None:
        pipe = self.r.pipeline(transaction=False)
        pipe.hgetall(_key("job", job_id))
        pipe.hgetall(_key("job", job_id, "seg"))
        data, segs = pipe.execute()
        if "id" not in data:  # absent, or only a stray field of a deleted job
            return None
        return Job(
            id=data["id"],
            tenant=data["tenant"],
            status=data["status"],
            created=float(data["created"]),
            updated=float(data["updated"]),
            spec=json.loads(data["spec"]),
            options=json.loads(data["options"]),
            has_video=data.get("has_video") == "1",
            segments_total=int(data["segments_total"]),
            error=data.get("error") or None,
            warnings=json.loads(data.get("warnings") or "[]"),
            timings=json.loads(data.get("timings") or "{}"),
            artifacts=json.loads(data.get("artifacts") or "[]"),
            stage=data.get("stage", ""),
            stage_progress=float(data.get("stage_progress") or 0),
            segments={int(k): json.loads(v) for k, v in segs.items()},
        )

    def status(self, job_id: str) -> str | None:
        return self.r.hget(_key("job", job_id), "status")

    def page(
        self, tenant: str, status: str | None, limit: int, cursor: int | None
    ) -> tuple[list[Job], int | None]:
        """Newest first; ``cursor`` is the creation time (ms) to continue below."""
        key = _key("tenant", tenant, "jobs")
        hi: str | int = "+inf" if cursor is None else f"({cursor}"
        out: list[Job] = []
        next_cursor = None
        offset = 0
        while len(out) < limit:
            batch = self.r.zrevrangebyscore(
                key, hi, "-inf", start=offset, num=limit * 2, withscores=True
            )
            if not batch:
                break
            offset += len(batch)
            for job_id, score in batch:
                job = self.get(job_id)
                if job and (status is None or job.status == status):
                    out.append(job)
                    if len(out) == limit:
                        next_cursor = int(score)
                        break
        return out, next_cursor

    def active(self) -> list[str]:
        return sorted(self.r.smembers(_key("active")))

    def forget_active(self, job_id: str) -> None:
        self.r.srem(_key("active"), job_id)

    def done_segments(self, job_id: str) -> set[int]:
        return {int(i) for i in self.r.smembers(_key("job", job_id, "done"))}

    def count_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for key in self.r.scan_iter(match=_key("job", "*"), count=500):
            if key.count(":") != 2:
                continue
            status = self.r.hget(key, "status")
            if status in counts:
                counts[status] += 1
        return counts

    # -- state changes --------------------------------------------------------------------
    def advance(self, job_id: str, status: str, **fields: Any) -> bool:
        """Move the job forward to ``status`` (never back, never out of a terminal state)."""
        args: list[Any] = [status, "updated", time.time()]
        for k, v in fields.items():
            args += [
                k,
                v if isinstance(v, str | int | float) else json.dumps(v, ensure_ascii=False),
            ]
        args.append(job_id)
        return bool(self._advance(keys=[_key("job", job_id), _key("active")], args=args))

    def update(self, job_id: str, **fields: Any) -> None:
        mapping: dict[str | bytes, bytes | float | int | str] = {
            k: v if isinstance(v, str | int | float) else json.dumps(v, ensure_ascii=False)
            for k, v in fields.items()
        }
        mapping["updated"] = time.time()
        self.r.hset(_key("job", job_id), mapping=mapping)

    def set_segment(self, job_id: str, index: int, **state: Any) -> None:
        key = _key("job", job_id, "seg")
        current = json.loads(self.r.hget(key, str(index)) or "{}")
        current.update(state)
        self.r.hset(key, str(index), json.dumps(current, ensure_ascii=False))
        # Progress, for the reconciler; XX-like: never recreate a deleted job's record.
        self._touch(keys=[_key("job", job_id)], args=[time.time()])

    def deliveries(self, job_id: str, task: str) -> int:
        """Count one more delivery of ``task``; a task that keeps killing workers is capped."""
        return int(self.r.hincrby(_key("job", job_id, "deliveries"), task, 1))

    def delivered(self, job_id: str, task: str) -> int:
        return int(self.r.hget(_key("job", job_id, "deliveries"), task) or 0)

    def segment_done(self, job_id: str, index: int) -> bool:
        """Record segment ``index`` finished; True for exactly one call: the last segment."""
        if not self.r.sadd(_key("job", job_id, "done"), index):
            return False  # a redelivery of a finished segment
        return int(self.r.decr(_key("job", job_id, "remaining"))) == 0

    # -- metrics --------------------------------------------------------------------------
    BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

    def observe_stage(self, stage: str, seconds: float) -> None:
        key = _key("metrics", "stage", stage)
        pipe = self.r.pipeline(transaction=False)
        for b in self.BUCKETS:
            if seconds <= b:
                pipe.hincrby(key, str(b), 1)
        pipe.hincrby(key, "count", 1)
        pipe.hincrbyfloat(key, "sum", seconds)
        pipe.execute()

    def stage_histograms(self) -> dict[str, dict[str, float]]:
        out = {}
        for key in self.r.scan_iter(match=_key("metrics", "stage", "*")):
            out[key.rsplit(":", 1)[1]] = {k: float(v) for k, v in self.r.hgetall(key).items()}
        return out

    def count_tts(self, engine: str, n: int = 1) -> None:
        self.r.hincrby(_key("metrics", "tts"), engine, n)

    def tts_calls(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.r.hgetall(_key("metrics", "tts")).items()}

    def queue_depth(self, queue: str) -> int:
        return int(self.r.llen(queue))


class IdempotencyConflict(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

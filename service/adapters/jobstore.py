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

A job is created in one Lua script: the idempotency key, the record and the job's first queue
messages together, so no other process sees a key without its job, and the broker never holds
a task whose record is missing. The script refuses to run after a deadline (Redis's own clock):
when a call times out on a hung Redis and the API answers 503, the buffered script, executed
once Redis resumes, changes nothing, so a 503 always means the job will never run.
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

# KEYS: job hash, remaining, seg hash, tenant zset, active set, queue list, idem key or "".
# ARGV: deadline (ms, Redis clock), idem value "<body hash> <id>", job key prefix, ttl,
#       n record fields, fields..., n segments, n messages, messages...
_CREATE = """
local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[1]) then
  return {'late'}
end
if KEYS[7] ~= '' then
  local cur = redis.call('GET', KEYS[7])
  if cur then
    local sep = string.find(cur, ' ', 1, true)
    local hash, id = string.sub(cur, 1, sep - 1), string.sub(cur, sep + 1)
    if hash ~= string.sub(ARGV[2], 1, string.find(ARGV[2], ' ', 1, true) - 1) then
      return {'conflict'}
    end
    if redis.call('HEXISTS', ARGV[3] .. id, 'id') == 1 then return {'exists', id} end
  end
  redis.call('SET', KEYS[7], ARGV[2], 'EX', tonumber(ARGV[4]))
end
local n = tonumber(ARGV[5])
local i = 6
local fields = {}
for j = 1, 2 * n do fields[j] = ARGV[i + j - 1] end
i = i + 2 * n
redis.call('HSET', KEYS[1], unpack(fields))
local segs = tonumber(ARGV[i])
i = i + 1
redis.call('SET', KEYS[2], segs)
for j = 0, segs - 1 do redis.call('HSET', KEYS[3], tostring(j), '{"state": "queued"}') end
local id = redis.call('HGET', KEYS[1], 'id')
redis.call('ZADD', KEYS[4], redis.call('HGET', KEYS[1], 'created_ms'), id)
redis.call('SADD', KEYS[5], id)
local m = tonumber(ARGV[i])
for j = 1, m do redis.call('LPUSH', KEYS[6], ARGV[i + j]) end
return {'created'}
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
    parent: str | None = None  # the job this one re-renders (a fix made in the studio)

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
        self._create = client.register_script(_CREATE)

    @classmethod
    def from_url(cls, url: str, timeout: float = 5.0, connect_timeout: float = 3.0) -> JobStore:
        """A store whose every call gives up after ``timeout`` s: a hung Redis costs a
        request that long, never longer."""
        return cls(
            redis.Redis.from_url(
                url,
                decode_responses=True,
                socket_timeout=timeout,
                socket_connect_timeout=connect_timeout,
            )
        )

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    # -- creation -------------------------------------------------------------------------
    def create(
        self,
        job: Job,
        idem: tuple[str, str] | None = None,
        messages: list[str] | None = None,
        queue: str = "",
        budget: float = 3600.0,
    ) -> tuple[Job, bool]:
        """Store a new job and push its queue ``messages`` onto ``queue``, in one atomic step,
        unless ``idem`` (key, body hash) names an existing job: then return that job and
        False. A key reused with another body raises IdempotencyConflict.

        The script must run within ``budget`` seconds of now by Redis's own clock (read
        first, so the API host's clock does not matter); later, it writes nothing and
        JobStoreLate is raised. Keep ``budget`` under the socket timeout: a call that timed
        out then can never take effect afterwards."""
        seconds, micros = self.r.time()
        deadline_ms = int(seconds) * 1000 + int(micros) // 1000 + int(budget * 1000)
        record: dict[str, Any] = {
            "id": job.id,
            "tenant": job.tenant,
            "status": "queued",
            "created": job.created,
            "created_ms": int(job.created * 1000),
            "updated": job.created,
            "spec": json.dumps(job.spec, ensure_ascii=False),
            "options": json.dumps(job.options),
            "has_video": int(job.has_video),
            "segments_total": job.segments_total,
            "warnings": json.dumps(job.warnings, ensure_ascii=False),
            "idem": idem[0] if idem else "",
            "parent": job.parent or "",
        }
        args: list[Any] = [
            deadline_ms,
            f"{idem[1]} {job.id}" if idem else "",
            _key("job", ""),
            86400,
            len(record),
        ]
        for k, v in record.items():
            args += [k, v]
        args += [job.segments_total, len(messages or []), *(messages or [])]
        keys = [
            _key("job", job.id),
            _key("job", job.id, "remaining"),
            _key("job", job.id, "seg"),
            _key("tenant", job.tenant, "jobs"),
            _key("active"),
            queue or _key("unused"),
            _key("idem", job.tenant, idem[0]) if idem else "",
        ]
        outcome = self._create(keys=keys, args=args)
        if outcome[0] == "late":
            raise JobStoreLate(job.id)
        if outcome[0] == "conflict":
            raise IdempotencyConflict(idem[0] if idem else "")
        if outcome[0] == "exists":
            found = self.get(outcome[1])
            if found is not None:
                return found, False
            raise JobStoreLate(job.id)  # deleted meanwhile: the client may retry
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
            parent=data.get("parent") or None,
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


class JobStoreLate(redis.RedisError):
    """The create script reached Redis after its deadline (or not at all): nothing was kept."""


class IdempotencyConflict(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

"""Fleet-wide figures in Redis, read at scrape time (every worker process contributes):
stage wall times as histograms, TTS requests per engine, jobs per state, queue depth. A
scrape is a handful of Redis calls whatever the number of jobs: no call walks the keyspace.

Jobs per state are kept by the job store's scripts (redis_scripts.py) as jobs move; the jobs
stored before those counters existed are counted once by ``backfill``."""

from __future__ import annotations

import json
import time
from typing import Any

from service.adapters.redis.errors import store_errors
from service.adapters.redis.fleet import UNACKED
from service.adapters.redis.keys import JOB_COUNTS, PREFIX, TENANT_COUNTS, key
from service.adapters.redis.scripts import COUNT
from service.domain.job import STATES
from service.ports import BUCKETS, WAIT_BUCKETS

STAGES = key("metrics", "stages")  # set: the stages that have a histogram (and "waits": tenants)
COUNTED = key("metrics", "jobs", "backfilled")  # set once every stored job is counted


@store_errors
class Metrics:
    """Each method raises StoreUnavailable for a Redis error."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True
        self._count = client.register_script(COUNT)

    def _observe(self, kind: str, member: str, seconds: float, bounds: tuple[float, ...]) -> None:
        """One observation in the histogram ``metrics:<kind>:<member>`` (cumulative bucket
        counts, count and sum), its member listed in ``metrics:<kind>s``."""
        name = key("metrics", kind, member)
        pipe = self.r.pipeline(transaction=False)
        for b in bounds:
            if seconds <= b:
                pipe.hincrby(name, str(b), 1)
        pipe.hincrby(name, "count", 1)
        pipe.hincrbyfloat(name, "sum", seconds)
        pipe.sadd(key("metrics", kind + "s"), member)
        pipe.execute()

    def _histograms(self, kind: str) -> dict[str, dict[str, float]]:
        members = sorted(self.r.smembers(key("metrics", kind + "s")))
        pipe = self.r.pipeline(transaction=False)
        for member in members:
            pipe.hgetall(key("metrics", kind, member))
        return {
            member: {k: float(v) for k, v in data.items()}
            for member, data in zip(members, pipe.execute(), strict=True)
            if data
        }

    def observe_stage(self, stage: str, seconds: float) -> None:
        self._observe("stage", stage, seconds, BUCKETS)

    def stage_histograms(self) -> dict[str, dict[str, float]]:
        return self._histograms("stage")

    def observe_wait(self, tenant: str, seconds: float) -> None:
        self._observe("wait", tenant, seconds, WAIT_BUCKETS)

    def tenant_waits(self) -> dict[str, dict[str, float]]:
        return self._histograms("wait")

    def count_tts(self, engine: str, n: int = 1) -> None:
        self.r.hincrby(key("metrics", "tts"), engine, n)

    def tts_calls(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.r.hgetall(key("metrics", "tts")).items()}

    def count_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for state, n in self.r.hgetall(JOB_COUNTS).items():
            if state in counts:
                counts[state] = int(n)
        return counts

    def queue_depth(self, queue: str) -> int:
        return int(self.r.llen(queue))

    def in_flight(self) -> dict[str, int]:
        """kombu's unacked hash (tag -> [message, exchange, routing key]) by routing key: as
        many entries as workers hold messages (their slots), so reading them all is cheap."""
        counts: dict[str, int] = {}
        for raw in self.r.hvals(UNACKED):
            routing = str(json.loads(raw)[2])
            counts[routing] = counts.get(routing, 0) + 1
        return counts

    def tenant_jobs(self) -> dict[tuple[str, str], int]:
        found = self.r.hgetall(TENANT_COUNTS).items()
        return {(f.rpartition(" ")[0], f.rpartition(" ")[2]): max(0, int(n)) for f, n in found}

    def backfill(self, batch: int = 500) -> int:
        """Count the job records not counted yet, and list the stages with a histogram: one
        scan, once per store (then a flag says it is done). Safe beside live traffic and a
        second API doing the same: each record is counted at most once, atomically."""
        if self.r.exists(COUNTED):
            return 0
        stage_prefix, n, jobs = key("metrics", "stage", ""), 0, []
        for name in self.r.scan_iter(match=PREFIX + "*", count=1000):
            if name.startswith(stage_prefix):
                self.r.sadd(STAGES, name[len(stage_prefix) :])
            elif name.startswith(key("job", "")) and name.count(":") == 2:
                jobs.append(name)
            if len(jobs) >= batch:
                n += int(self._count(keys=[JOB_COUNTS, *jobs]))
                jobs = []
        if jobs:
            n += int(self._count(keys=[JOB_COUNTS, *jobs]))
        self.r.set(COUNTED, time.time())
        return n

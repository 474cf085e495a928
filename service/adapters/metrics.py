"""Fleet-wide figures in Redis, read at scrape time (every worker process contributes):
stage wall times as histograms, TTS requests per engine, jobs per state, queue depth. A
scrape is a handful of Redis calls whatever the number of jobs: no call walks the keyspace.

Jobs per state are kept by the job store's scripts (redis_scripts.py) as jobs move; the jobs
stored before those counters existed are counted once by ``backfill``."""

from __future__ import annotations

import time
from typing import Any

from service.adapters.jobstore import JOB_COUNTS, PREFIX, TENANT_COUNTS, key
from service.adapters.redis_errors import store_errors
from service.adapters.redis_scripts import COUNT
from service.domain.job import STATES
from service.ports import BUCKETS

STAGES = key("metrics", "stages")  # set: the stages that have a histogram
COUNTED = key("metrics", "jobs", "backfilled")  # set once every stored job is counted


@store_errors
class Metrics:
    """Each method raises StoreUnavailable for a Redis error."""

    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True
        self._count = client.register_script(COUNT)

    def observe_stage(self, stage: str, seconds: float) -> None:
        name = key("metrics", "stage", stage)
        pipe = self.r.pipeline(transaction=False)
        for b in BUCKETS:
            if seconds <= b:
                pipe.hincrby(name, str(b), 1)
        pipe.hincrby(name, "count", 1)
        pipe.hincrbyfloat(name, "sum", seconds)
        pipe.sadd(STAGES, stage)
        pipe.execute()

    def stage_histograms(self) -> dict[str, dict[str, float]]:
        stages = sorted(self.r.smembers(STAGES))
        pipe = self.r.pipeline(transaction=False)
        for stage in stages:
            pipe.hgetall(key("metrics", "stage", stage))
        return {
            stage: {k: float(v) for k, v in data.items()}
            for stage, data in zip(stages, pipe.execute(), strict=True)
            if data
        }

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

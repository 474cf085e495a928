"""Fleet-wide figures in Redis, read at scrape time (every worker process contributes):
stage wall times as histograms, TTS requests per engine, jobs per state, queue depth."""

from __future__ import annotations

from typing import Any

from service.adapters.jobstore import key
from service.domain.job import STATES

BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class Metrics:
    def __init__(self, client: Any) -> None:
        self.r = client  # decode_responses=True

    def observe_stage(self, stage: str, seconds: float) -> None:
        name = key("metrics", "stage", stage)
        pipe = self.r.pipeline(transaction=False)
        for b in BUCKETS:
            if seconds <= b:
                pipe.hincrby(name, str(b), 1)
        pipe.hincrby(name, "count", 1)
        pipe.hincrbyfloat(name, "sum", seconds)
        pipe.execute()

    def stage_histograms(self) -> dict[str, dict[str, float]]:
        out = {}
        for name in self.r.scan_iter(match=key("metrics", "stage", "*")):
            out[name.rsplit(":", 1)[1]] = {k: float(v) for k, v in self.r.hgetall(name).items()}
        return out

    def count_tts(self, engine: str, n: int = 1) -> None:
        self.r.hincrby(key("metrics", "tts"), engine, n)

    def tts_calls(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.r.hgetall(key("metrics", "tts")).items()}

    def count_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for name in self.r.scan_iter(match=key("job", "*"), count=500):
            if name.count(":") != 2:
                continue
            status = self.r.hget(name, "status")
            if status in counts:
                counts[status] += 1
        return counts

    def queue_depth(self, queue: str) -> int:
        return int(self.r.llen(queue))

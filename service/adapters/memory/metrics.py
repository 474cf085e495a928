"""Fleet figures in this process's memory (the Metrics port's twin of adapters/redis/metrics.py)."""

from __future__ import annotations

from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.queue import MemoryQueue
from service.domain.job import STATES
from service.ports import BUCKETS, WAIT_BUCKETS


def _histograms(
    observed: dict[str, list[float]], bounds: tuple[float, ...]
) -> dict[str, dict[str, float]]:
    out = {}
    for name, values in observed.items():
        counts = {str(b): float(sum(v <= b for v in values)) for b in bounds}
        out[name] = {**counts, "count": float(len(values)), "sum": sum(values)}
    return out


class MemoryMetrics:
    """Stage histograms, TTS calls, jobs by state and queue depth, counted in memory."""

    def __init__(self, store: MemoryJobStore, queue: MemoryQueue) -> None:
        self.store = store
        self.queue = queue
        self.stages: dict[str, list[float]] = {}
        self.tts: dict[str, int] = {}
        self.waits: dict[str, list[float]] = {}

    def observe_stage(self, stage: str, seconds: float) -> None:
        self.stages.setdefault(stage, []).append(seconds)

    def stage_histograms(self) -> dict[str, dict[str, float]]:
        return _histograms(self.stages, BUCKETS)

    def observe_wait(self, tenant: str, seconds: float) -> None:
        self.waits.setdefault(tenant, []).append(seconds)

    def tenant_waits(self) -> dict[str, dict[str, float]]:
        return _histograms(self.waits, WAIT_BUCKETS)

    def count_tts(self, engine: str, n: int = 1) -> None:
        self.tts[engine] = self.tts.get(engine, 0) + n

    def tts_calls(self) -> dict[str, int]:
        return dict(self.tts)

    def count_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for job_id in list(self.store._jobs):
            status = self.store.status(job_id)
            if status in counts:
                counts[status] += 1
        return counts

    def queue_depth(self, queue: str) -> int:
        return len(self.queue.pending)

    def in_flight(self) -> dict[str, int]:
        return {self.queue.name: self.queue.running} if self.queue.running else {}

    def tenant_jobs(self) -> dict[tuple[str, str], int]:
        counts: dict[tuple[str, str], int] = {}
        for job in list(self.store._jobs.values()):
            if not job.terminal:
                counts[job.tenant, job.status] = counts.get((job.tenant, job.status), 0) + 1
        return counts

    def backfill(self, batch: int = 500) -> int:
        return 0  # counted live: nothing predates this store

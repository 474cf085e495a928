"""The API in-process (FastAPI's TestClient) on the in-memory store and queue
(NARRATE_REDIS_URL=memory://, service/adapters/memory/stores.py): no Redis, no Celery, no uvicorn. Tasks run when a test drains
the queue, through the same WorkerSteps the Celery tasks call, on the real pipeline (espeak-ng,
ffmpeg) and local storage."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from service import wiring
from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.queue import MemoryQueue
from service.api.app import create_app
from service.config import Settings
from service.jobs import JobService, WorkerSteps
from service.jobs.keys import KeyStore


@dataclass
class Fleet:
    """An API client, and the fleet that works the queue when asked."""

    settings: Settings
    service: JobService
    steps: WorkerSteps
    queue: MemoryQueue
    app: Any

    @property
    def store(self) -> MemoryJobStore:
        """The job store, every role of it (the test's back door to records and events)."""
        found = self.service.store.records
        assert isinstance(found, MemoryJobStore)
        return found

    @property
    def keys(self) -> KeyStore:
        """The tenants' keys the API signs callers in with (in memory)."""
        assert self.service.keys is not None
        return self.service.keys

    def client(self, key: str | None = None) -> TestClient:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return TestClient(self.app, base_url="http://127.0.0.1", headers=headers)

    def work(self) -> int:
        """Run every waiting task (and those they enqueue); how many ran."""
        return self.queue.drain(wiring.run_task(self.steps))


def make_fleet(tmp: Path, **settings: Any) -> Fleet:
    """The fleet on production's wiring (service/wiring.py ``build``), on ``memory://``."""
    settings.setdefault("redis_url", "memory://")
    conf = Settings(data_dir=tmp / "data", default_engine="espeak", **settings)
    built = wiring.build(conf)
    assert isinstance(built.stores.queue, MemoryQueue)
    return Fleet(
        conf, built.job_service, built.worker_steps, built.stores.queue, create_app(conf, built)
    )

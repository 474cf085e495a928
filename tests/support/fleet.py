"""The API in-process (FastAPI's TestClient) on the in-memory store and queue
(service/adapters/memory/jobstore.py): no Redis, no Celery, no uvicorn. Tasks run when a test drains
the queue, through the same WorkerSteps the Celery tasks call, on the real pipeline (espeak-ng,
ffmpeg) and local storage."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from service import wiring
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
    conf = Settings(data_dir=tmp / "data", default_engine="espeak", **settings)
    service, steps, queue = wiring.in_memory(conf)
    return Fleet(conf, service, steps, queue, create_app(conf, service))

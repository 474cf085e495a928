"""What the API side (JobService) and the worker side (WorkerSteps) of a job both hold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.config import Settings
from service.jobs.lifecycle import Lifecycle
from service.pipeline import Pipeline
from service.ports import JobStore, Metrics, Queue, Storage
from service.ports.dispatch import Lanes

if TYPE_CHECKING:
    from service.jobs.batch_progress import BatchProgress
    from service.jobs.webhooks import Webhooks


class JobParts:
    """The adapters a job step works through, wired once by ``service.wiring``."""

    def enqueue_first(self, tenant: str, message: str) -> None:
        """Where the next task of ``tenant`` is taken from: the head of its lane (fair share)
        or of the queue."""
        if self.lanes is not None:
            self.lanes.push_first(tenant, message)
        else:
            self.store.push_first(self.queue.name, message)

    def __init__(
        self,
        settings: Settings,
        store: JobStore,
        storage: Storage,
        pipeline: Pipeline,
        queue: Queue,
        metrics: Metrics,
        webhooks: Webhooks | None = None,
        lanes: Lanes | None = None,
        progress: BatchProgress | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.storage = storage
        self.pipeline = pipeline
        self.queue = queue
        self.metrics = metrics
        self.webhooks = webhooks
        self.lanes = lanes  # None: no fair share, tasks go straight to the queue
        self.lifecycle = Lifecycle(settings, store, storage, webhooks, progress)

"""Parts the API side (JobService) and the worker side (WorkerSteps) of a job compose
(service/wiring.py builds each once): no base class, each side holds what it uses."""

from __future__ import annotations

from dataclasses import dataclass

from service.ports import QueueHeads
from service.ports.dispatch import Lanes


@dataclass(frozen=True, slots=True)
class FirstInLine:
    """Where the next task of a tenant is taken from: the head of its lane (fair share) or
    of the broker's queue."""

    lanes: Lanes | None  # None: no fair share, tasks go straight to the queue
    heads: QueueHeads
    queue: str

    def enqueue_first(self, tenant: str, message: str) -> None:
        if self.lanes is not None:
            self.lanes.push_first(tenant, message)
        else:
            self.heads.push_first(self.queue, message)

"""The backlog an autoscaler scales workers on. The fair-share dispatcher keeps only a window
of tasks in the Celery queue and the rest in the tenants' lanes, so the queue's length alone
(KEDA's Redis-list trigger) reads about 1 whatever waits: the backlog is the lanes plus the
queue (waiting) plus the tasks workers hold (running), and a fleet needs one task slot for
each, as the Airflow chart's KEDA query and klippa's keda-celery-scaler count Celery's."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backlog:
    """One queue's tasks: waiting (its tenants' lanes and the broker's list) and running
    (delivered to a worker, not acked)."""

    waiting: int
    running: int

    def desired_workers(self, concurrency: int) -> int:
        """ceil((waiting + running) / concurrency): workers of ``concurrency`` task slots
        each that would start every waiting task now and keep the running ones."""
        return math.ceil((self.waiting + self.running) / max(1, concurrency))

"""The Lanes and Lease ports in this process's memory (the twins of adapters/redis/lanes.py): the
lanes live in the MemoryQueue beside its pending list, so the fast tier's fleet dispatches
them in fair order when it drains the queue."""

from __future__ import annotations

import json
import threading
from typing import Any

from service.adapters.memory.queue import MemoryQueue
from service.adapters.redis.keys import LANE_PREFIX
from service.adapters.redis.lanes import lane_key
from service.domain.wire import JsonObject


def _held(task: tuple[str, list[Any]]) -> str:
    """A lane's task as the broker would hold it (what MemoryQueue.step reads, as JSON)."""
    return json.dumps({"task": task[0], "args": task[1]})


class MemoryLanes:
    def __init__(self, queue: MemoryQueue) -> None:
        self.queue = queue

    def lane(self, tenant: str) -> str:
        return lane_key(tenant)

    def push_first(self, tenant: str, message: str) -> None:
        name, args = json.loads(message)
        with self.queue._lock:
            self.queue.lanes.setdefault(lane_key(tenant), []).insert(0, (name, args))

    def heads(self) -> dict[str, str]:
        with self.queue._lock:
            for lane in [k for k, tasks in self.queue.lanes.items() if not tasks]:
                del self.queue.lanes[lane]
            return {
                k[len(LANE_PREFIX) :]: _held(tasks[0])
                for k, tasks in sorted(self.queue.lanes.items())
            }

    def move(self, tenant: str, message: str, first: bool) -> bool:
        with self.queue._lock:
            tasks = self.queue.lanes.get(lane_key(tenant))
            if not tasks or _held(tasks[0]) != message:
                return False
            task = tasks.pop(0)
            if first:
                self.queue.pending.insert(0, task)
            else:
                self.queue.pending.append(task)
            return True

    def depth(self) -> int:
        return len(self.queue.pending)

    def depths(self) -> dict[str, int]:
        with self.queue._lock:
            return {k[len(LANE_PREFIX) :]: len(v) for k, v in sorted(self.queue.lanes.items())}

    def waiting(self) -> list[JsonObject]:
        with self.queue._lock:
            tasks = [t for lane in self.queue.lanes.values() for t in lane]
        return [{"task": name, "args": args} for name, args in tasks]

    def queued(self) -> list[JsonObject]:
        with self.queue._lock:
            return [{"task": name, "args": args} for name, args in self.queue.pending]


class MemoryLease:
    """One holder at a time, and it never lapses (one process: nothing to outlive)."""

    def __init__(self) -> None:
        self.holder: str | None = None
        self._lock = threading.Lock()

    def acquire(self, holder: str, seconds: float) -> bool:
        with self._lock:
            if self.holder in (None, holder):
                self.holder = holder
                return True
            return False

    def release(self, holder: str) -> None:
        with self._lock:
            if self.holder == holder:
                self.holder = None

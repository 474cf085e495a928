"""The BatchStore port in this process's memory (the fast test tier's twin of
adapters/redis/batches.py): the same rules under one lock."""

from __future__ import annotations

import copy
import threading

from service.adapters.memory.events import MemoryEventLog
from service.adapters.memory.idem import IdempotencyKeys
from service.domain.batch import Batch
from service.domain.job import page_cursor, parse_cursor
from service.domain.wire import JsonObject


class MemoryBatches:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._batches: dict[str, Batch] = {}
        self._idem = IdempotencyKeys()

    def create(self, batch: Batch, idem: tuple[str, str] | None = None) -> tuple[Batch, bool]:
        with self._lock:
            made = self._idem.claim(batch.tenant, idem, batch.id, self._batches)
            if made is not None:
                return copy.deepcopy(self._batches[made]), False
            self._batches[batch.id] = copy.deepcopy(batch)
        return batch, True

    def discard(self, batch: Batch, idem: str | None = None) -> None:
        with self._lock:
            self._batches.pop(batch.id, None)
            self._idem.forget(batch.id)

    def get(self, batch_id: str) -> Batch | None:
        with self._lock:
            found = self._batches.get(batch_id)
            return copy.deepcopy(found) if found else None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Batch], str | None]:
        below = parse_cursor(cursor)
        with self._lock:
            mine = [b for b in self._batches.values() if b.tenant == tenant]
        order = sorted(mine, key=lambda b: (int(b.created * 1000), b.id), reverse=True)
        if below is not None:
            order = [
                b
                for b in order
                if (ms := int(b.created * 1000)) < below[0] or (ms == below[0] and b.id < below[1])
            ]
        page = [copy.deepcopy(b) for b in order[:limit]]
        more = len(order) > limit
        return page, page_cursor(int(page[-1].created * 1000), page[-1].id) if more else None


class MemoryBatchEvents(MemoryEventLog):
    """The BatchEvents port in memory (the twin of adapters/redis/batch_events.py)."""

    def __init__(self) -> None:
        super().__init__()
        self._completed: set[str] = set()

    def complete(self, batch_id: str, data: JsonObject) -> bool:
        with self._events_lock:
            if batch_id in self._completed:
                return False
            self._completed.add(batch_id)
        self.publish(batch_id, "completed", data)
        return True

"""The tenants' keys in this process's memory (the TenantKeys port's twin)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from service.ports import KeyRecord


class MemoryTenantKeys:
    """The TenantKeys port in memory (RedisTenantKeys' twin)."""

    def __init__(self) -> None:
        self._records: dict[str, KeyRecord] = {}
        self._imported: set[str] = set()
        self._lock = threading.Lock()

    def add(self, record: KeyRecord) -> bool:
        with self._lock:
            return self._put(record)

    def _put(self, record: KeyRecord) -> bool:
        if record.id in self._records:
            return False
        self._records[record.id] = record
        return True

    def get(self, key_id: str) -> KeyRecord | None:
        with self._lock:
            return self._records.get(key_id)

    def of_tenant(self, tenant: str) -> list[KeyRecord]:
        with self._lock:
            return [r for r in self._records.values() if r.tenant == tenant]

    def all(self) -> list[KeyRecord]:
        with self._lock:
            return list(self._records.values())

    def remove(self, records: Sequence[KeyRecord]) -> None:
        with self._lock:
            for record in records:
                self._records.pop(record.id, None)

    def import_once(self, records: Sequence[KeyRecord]) -> int:
        added = 0
        with self._lock:
            for record in records:
                if record.digest not in self._imported:
                    self._imported.add(record.digest)
                    added += self._put(record)
        return added

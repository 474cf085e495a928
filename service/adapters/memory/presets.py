"""Each tenant's saved presets in this process's memory (the PresetStore port's twin)."""

from __future__ import annotations

import threading


class MemoryPresets:
    """The PresetStore port in memory (RedisPresets' twin)."""

    def __init__(self) -> None:
        self._saved: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def saved(self, tenant: str) -> dict[str, str]:
        with self._lock:
            return dict(self._saved.get(tenant, {}))

    def get(self, tenant: str, name: str) -> str | None:
        with self._lock:
            return self._saved.get(tenant, {}).get(name)

    def put(self, tenant: str, name: str, data: str, limit: int) -> bool:
        with self._lock:
            mine = self._saved.setdefault(tenant, {})
            if name not in mine and len(mine) >= limit:
                return False
            mine[name] = data
            return True

    def delete(self, tenant: str, name: str) -> bool:
        with self._lock:
            return self._saved.get(tenant, {}).pop(name, None) is not None

"""Each tenant's pronunciation dictionaries in this process's memory (the LexiconStore port's
twin of adapters/redis/lexicons.py)."""

from __future__ import annotations

import threading

from service.ports import LexiconVersion


class MemoryLexicons:
    """The LexiconStore port in memory: per tenant, id -> every version's (about, data)."""

    def __init__(self) -> None:
        self._kept: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self._lock = threading.Lock()

    def create(self, version: LexiconVersion, limit: int) -> bool:
        with self._lock:
            mine = self._kept.setdefault(version.tenant, {})
            if version.lexicon_id in mine or len(mine) >= limit:
                return False
            mine[version.lexicon_id] = [(version.about, version.data)]
            return True

    def update(self, version: LexiconVersion, limit: int, after: int | None = None) -> int:
        with self._lock:
            kept = self._kept.get(version.tenant, {}).get(version.lexicon_id)
            if kept is None:
                return 0
            if after is not None and len(kept) != after:
                return -2
            if len(kept) >= limit:
                return -1
            kept.append((version.about, version.data))
            return len(kept)

    def get(
        self, tenant: str, lexicon_id: str, version: int | None = None
    ) -> tuple[int, str] | None:
        with self._lock:
            kept = self._kept.get(tenant, {}).get(lexicon_id)
            n = len(kept or []) if version is None else version
            if kept is None or not 1 <= n <= len(kept):
                return None
            return n, kept[n - 1][1]

    def versions(self, tenant: str, lexicon_id: str) -> list[str]:
        with self._lock:
            return [about for about, _ in self._kept.get(tenant, {}).get(lexicon_id, [])]

    def latest(self, tenant: str) -> dict[str, tuple[int, str]]:
        with self._lock:
            mine = self._kept.get(tenant, {})
            return {i: (len(kept), kept[-1][0]) for i, kept in mine.items()}

    def delete(self, tenant: str, lexicon_id: str) -> bool:
        with self._lock:
            return self._kept.get(tenant, {}).pop(lexicon_id, None) is not None

"""API keys: ``narrate keys create NAME`` prints a key once; only its SHA-256 is stored,
in ``<data_dir>/keys.json``, mapping to the tenant NAME."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from pathlib import Path

from service.adapters.storage import atomic_write
from service.domain.errors import InputError

_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: tuple[float, dict[str, dict[str, object]]] | None = None

    def _load(self) -> dict[str, dict[str, object]]:
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            return {}
        if self._cache is None or self._cache[0] != mtime:
            self._cache = (mtime, json.loads(self.path.read_text(encoding="utf-8")))
        return self._cache[1]

    def create(self, tenant: str) -> str:
        if not _TENANT.match(tenant):
            raise InputError(
                f"tenant name {tenant!r} must be lowercase letters, digits, '-' or '_' (max 64)"
            )
        key = "nk_" + secrets.token_urlsafe(32)
        data = dict(self._load())
        data[digest(key)] = {"tenant": tenant, "created": time.time()}
        atomic_write(self.path, json.dumps(data, indent=2).encode())
        return key

    def tenant(self, key: str) -> str | None:
        entry = self._load().get(digest(key))
        return str(entry["tenant"]) if entry else None

    def __bool__(self) -> bool:
        return bool(self._load())

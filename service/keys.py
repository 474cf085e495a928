"""API keys: ``narrate keys create NAME`` prints a key once; only its SHA-256 is stored,
in ``<data_dir>/keys.json``, mapping to the tenant NAME. ``keys list`` shows each key's id
(the first 12 hex digits of its digest: enough to name it, useless to sign in with) and
``keys revoke`` removes keys by tenant or id; the API reads the file again once it changes."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from service.adapters.storage import atomic_write
from service.domain.errors import InputError

_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
ID_LENGTH = 12


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class KeyInfo:
    id: str
    tenant: str
    created: float


class KeyStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: tuple[tuple[int, int, int], dict[str, dict[str, object]]] | None = None

    def _load(self) -> dict[str, dict[str, object]]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return {}
        # Every write replaces the file (a new inode): a revoke is seen even within the
        # timestamp's granularity, where the mtime alone would not change.
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._cache is None or self._cache[0] != stamp:
            self._cache = (stamp, json.loads(self.path.read_text(encoding="utf-8")))
        return self._cache[1]

    def create(self, tenant: str, limits: dict[str, int] | None = None) -> str:
        """A new key for ``tenant``; ``limits`` (max_queued, max_running, per_minute,
        max_batch_items, weight) are the tenant's own quotas and fair-share weight while it
        holds this key (service/jobs/quotas.py, service/jobs/dispatch.py)."""
        if not _TENANT.match(tenant):
            raise InputError(
                f"tenant name {tenant!r} must be lowercase letters, digits, '-' or '_' (max 64)"
            )
        key = "nk_" + secrets.token_urlsafe(32)
        data = dict(self._load())
        entry: dict[str, object] = {"tenant": tenant, "created": time.time()}
        if limits:
            entry["limits"] = dict(limits)
        data[digest(key)] = entry
        self._save(data)
        return key

    def tenant(self, key: str) -> str | None:
        """The key's tenant: every stored digest is compared, in constant time each."""
        wanted, found = digest(key).encode(), None
        for stored, entry in self._load().items():
            if hmac.compare_digest(stored.encode(), wanted):
                found = str(entry["tenant"])
        return found

    def limits(self, tenant: str) -> dict[str, int]:
        """The quotas ``tenant``'s keys set, the newest key's winning per limit."""
        own = sorted(
            (e for e in self._load().values() if e["tenant"] == tenant),
            key=lambda e: float(str(e.get("created", 0))),
        )
        out: dict[str, int] = {}
        for e in own:
            found = e.get("limits")
            if isinstance(found, dict):
                out.update({str(k): int(v) for k, v in found.items()})
        return out

    def entries(self) -> list[KeyInfo]:
        entries = [
            KeyInfo(d[:ID_LENGTH], str(e["tenant"]), float(str(e.get("created", 0))))
            for d, e in self._load().items()
        ]
        return sorted(entries, key=lambda k: (k.tenant, k.created))

    def revoke(self, which: str) -> list[KeyInfo]:
        """Remove the keys of tenant ``which``, or the key whose id is ``which``."""
        data = dict(self._load())
        gone = [d for d, e in data.items() if which in (e["tenant"], d[:ID_LENGTH])]
        if not gone:
            raise InputError(f"no key of a tenant or with an id {which!r} (see narrate keys list)")
        revoked = [KeyInfo(d[:ID_LENGTH], str(data[d]["tenant"]), 0.0) for d in gone]
        for d in gone:
            del data[d]
        self._save(data)
        return revoked

    def _save(self, data: dict[str, dict[str, object]]) -> None:
        atomic_write(self.path, json.dumps(data, indent=2).encode())

    def __bool__(self) -> bool:
        return bool(self._load())

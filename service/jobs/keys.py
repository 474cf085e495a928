"""API keys: ``narrate keys create NAME`` prints a key once; only its SHA-256 is stored, in
the shared store (the TenantKeys port: Redis for the service), mapping to the tenant NAME
with the quotas and weight the key gives it. ``keys list`` shows each key's id (the first 12
hex digits of its digest: enough to name it, useless to sign in with) and ``keys revoke``
removes keys by tenant or id. Nothing is cached: a revoke is refused by every API at once.
A ``<data_dir>/keys.json`` of an earlier version is imported once (``import_file``)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from service.domain.errors import InputError, StoreUnavailable
from service.ports import KeyRecord, TenantKeys
from service.ports.tenants import ID_LENGTH

__all__ = ["ID_LENGTH", "KeyInfo", "KeyStore", "digest", "read_keys_file"]

log = logging.getLogger("narrate.keys")
_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class KeyInfo:
    id: str
    tenant: str
    created: float


def read_keys_file(path: Path) -> list[KeyRecord]:
    """The records of an earlier version's keys.json (digest -> tenant, created, limits);
    none when there is no file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    return [
        KeyRecord(
            str(d),
            str(e["tenant"]),
            float(e.get("created", 0)),
            {str(k): int(v) for k, v in (e.get("limits") or {}).items()},
        )
        for d, e in data.items()
    ]


# The dispatcher asks for a ready tenant's weight and max-running on every tick (every 50 ms):
# its limits are read from the store at most once a second per process. A key's tenant (the
# sign-in, hence a revoke) is never cached.
LIMITS_TTL = 1.0


class KeyStore:
    def __init__(
        self,
        port: TenantKeys,
        legacy: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.clock = clock
        self._limits: dict[str, tuple[float, dict[str, int]]] = {}  # tenant -> (read at, limits)
        self._legacy = legacy  # a keys.json still to import
        with contextlib.suppress(StoreUnavailable):
            self._import()  # as the process starts; a store away: on the first call it answers

    def _import(self) -> None:
        if self._legacy is not None:
            self.import_file(self._legacy)
            self._legacy = None

    def create(self, tenant: str, limits: dict[str, int] | None = None) -> str:
        """A new key for ``tenant``; ``limits`` (max_queued, max_running, per_minute,
        max_batch_items, weight) are the tenant's own quotas and fair-share weight while it
        holds this key (service/jobs/quotas.py, service/jobs/dispatch.py)."""
        if not _TENANT.match(tenant):
            raise InputError(
                f"tenant name {tenant!r} must be lowercase letters, digits, '-' or '_' (max 64)"
            )
        self._import()
        self._limits.pop(tenant, None)
        while True:  # an id taken (one in 2^48 per key) draws another key
            key = "nk_" + secrets.token_urlsafe(32)
            if self.port.add(KeyRecord(digest(key), tenant, time.time(), dict(limits or {}))):
                return key

    def tenant(self, key: str) -> str | None:
        """The key's tenant. The record is found by its id, and its whole digest compared in
        constant time: the lookup's timing tells a caller nothing past the id's digits, which
        a guess cannot steer without a preimage of SHA-256."""
        self._import()
        wanted = digest(key)
        record = self.port.get(wanted[:ID_LENGTH])
        if record is None or not hmac.compare_digest(record.digest.encode(), wanted.encode()):
            return None
        return record.tenant

    def limits(self, tenant: str) -> dict[str, int]:
        """The quotas ``tenant``'s keys set, the newest key's winning per limit; at most
        LIMITS_TTL old (a change made through this store is seen at once)."""
        now = self.clock()
        cached = self._limits.get(tenant)
        if cached is not None and now - cached[0] < LIMITS_TTL:
            return dict(cached[1])
        self._import()
        out: dict[str, int] = {}
        for record in sorted(self.port.of_tenant(tenant), key=lambda r: r.created):
            out.update(record.limits)
        self._limits[tenant] = (now, out)
        return dict(out)

    def entries(self) -> list[KeyInfo]:
        self._import()
        found = [KeyInfo(r.id, r.tenant, r.created) for r in self.port.all()]
        return sorted(found, key=lambda k: (k.tenant, k.created))

    def revoke(self, which: str) -> list[KeyInfo]:
        """Remove the keys of tenant ``which``, or the key whose id is ``which``."""
        self._import()
        gone = self.port.of_tenant(which)
        if not gone and len(which) == ID_LENGTH and (one := self.port.get(which)) is not None:
            gone = [one]
        if not gone:
            raise InputError(f"no key of a tenant or with an id {which!r} (see narrate keys list)")
        self.port.remove(gone)
        for record in gone:
            self._limits.pop(record.tenant, None)
        return [KeyInfo(r.id, r.tenant, 0.0) for r in gone]

    def import_file(self, path: Path) -> int:
        """Import the keys of an earlier version's keys.json, each once ever (a key revoked
        after its import is not brought back by the file still holding it)."""
        records = read_keys_file(path)
        added = self.port.import_once(records) if records else 0
        if added:
            log.info(
                "imported %d key(s) from %s into the shared store (once: the file is no "
                "longer read; manage keys with narrate keys)",
                added,
                path,
            )
        return added

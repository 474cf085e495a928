"""The tenants' API keys, their quotas and fair-share weight, in the shared store: every API,
dispatcher and `narrate keys` on every machine reads and writes the same records, so a key
made on one machine works on all and a revoked one is refused on all at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

ID_LENGTH = 12  # hex digits of a key's digest that name it (enough to name, not to sign in)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """One key as stored: its SHA-256 (never the key), its tenant, and the quotas and weight
    it gives the tenant (max_queued, max_running, per_minute, max_batch_items, weight)."""

    digest: str
    tenant: str
    created: float
    limits: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.digest[:ID_LENGTH]


class TenantKeys(Protocol):
    """The key records by id (a digest's first hex digits). StoreUnavailable when the store
    cannot be reached."""

    def add(self, record: KeyRecord) -> bool:
        """Store ``record``; False, storing nothing, when a key with its id exists."""
        ...

    def get(self, key_id: str) -> KeyRecord | None: ...

    def of_tenant(self, tenant: str) -> list[KeyRecord]: ...

    def all(self) -> list[KeyRecord]: ...

    def remove(self, records: Sequence[KeyRecord]) -> None: ...

    def import_once(self, records: Sequence[KeyRecord]) -> int:
        """Add each record whose digest was never imported before (a key revoked since its
        import stays revoked); how many were added."""
        ...

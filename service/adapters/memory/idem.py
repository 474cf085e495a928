"""Idempotency-Keys in memory, as the Redis create scripts keep them (``idem:<t>:<key>``):
per tenant, a key maps one request body to the one record it made. The job store and the
batch store each hold one, under their own lock."""

from __future__ import annotations

from collections.abc import Container

from service.domain.errors import IdempotencyConflict


class IdempotencyKeys:
    """(tenant, key) -> (body hash, the id of the record the key made)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], tuple[str, str]] = {}

    def claim(
        self, tenant: str, idem: tuple[str, str] | None, new_id: str, stored: Container[str]
    ) -> str | None:
        """The id of the record in ``stored`` that ``idem`` (key, body hash) made already;
        else None, the key now naming ``new_id`` (a key whose record is gone is given anew).
        IdempotencyConflict for the key with another body."""
        if idem is None:
            return None
        found = self._kept.get((tenant, idem[0]))
        if found is not None:
            if found[0] != idem[1]:
                raise IdempotencyConflict(idem[0])
            if found[1] in stored:
                return found[1]
        self._kept[(tenant, idem[0])] = (idem[1], new_id)
        return None

    def forget(self, record_id: str) -> None:
        """Drop the keys that name ``record_id`` (its record is discarded)."""
        for k in [k for k, (_, kept) in self._kept.items() if kept == record_id]:
            del self._kept[k]

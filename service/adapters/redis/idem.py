"""What a create script (scripts.py's CREATE for a job, batches.py's for a batch) answers of
its Idempotency-Key: ``{'created'}``, ``{'exists', id}`` (the key made that record already,
with the same body) or ``{'conflict'}`` (the key came with another body)."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.errors import IdempotencyConflict


def made_before(outcome: Sequence[str], idem: tuple[str, str] | None) -> str | None:
    """The id of the record ``idem`` made already (None: the script stored the new one);
    IdempotencyConflict for the key with another body."""
    if outcome[0] == "conflict":
        raise IdempotencyConflict(idem[0] if idem else "")
    return outcome[1] if outcome[0] == "exists" else None

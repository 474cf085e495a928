"""The writes a job's record takes, typed: a move of its status (``Transition``), a change of
its other fields (``JobUpdate``) and of one segment's state (``SegmentUpdate``). The job
store's ``advance``, ``update`` and ``set_segment`` take them; each says which fields it
sets (``fields``: what the store writes and the job's event carries, in this order) and how
a job in memory takes it (``apply``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, fields, replace
from typing import Any

from pydantic_core import to_jsonable_python

from service.domain.job import Job, JobStatus, SegmentFields, SegmentRecord
from service.domain.notices import Notice
from service.domain.wire import JsonObject, JsonValue


def _set_fields(change: object, skip: tuple[str, ...] = ()) -> JsonObject:
    """The fields ``change`` sets (those not None), as JSON values, in declaration order."""
    out: JsonObject = {}
    for f in fields(change):  # type: ignore[arg-type]
        value = getattr(change, f.name)
        if f.name not in skip and value is not None:
            out[f.name] = _json(value)
    return out


def _json(value: object) -> JsonValue:
    converted: JsonValue = to_jsonable_python(value)
    return converted


def _apply(change: object, target: object, skip: tuple[str, ...] = ()) -> None:
    for f in fields(change):  # type: ignore[arg-type]
        value = getattr(change, f.name)
        if f.name not in skip and value is not None and hasattr(target, f.name):
            setattr(target, f.name, copy.deepcopy(value))


@dataclass(frozen=True, slots=True)
class Transition:
    """The job moves to ``status`` (forward only; never out of a terminal state), setting
    these fields with it."""

    status: JobStatus
    error: Notice | None = None
    artifacts: list[str] | None = None
    warnings: list[Notice] | None = None
    timings: dict[str, float] | None = None
    stage: str | None = None
    stage_progress: float | None = None

    def fields(self) -> JsonObject:
        """What the record takes beside its status."""
        return _set_fields(self, skip=("status",))

    def event(self) -> JsonObject:
        """The job's ``status`` event (GET /v1/jobs/{id}/events)."""
        return {"status": self.status.value, **self.fields()}

    def allowed(self, current: JobStatus) -> bool:
        return current.rank < 2 and self.status.rank >= current.rank

    def apply(self, job: Job, now: float) -> None:
        job.status = self.status
        job.updated = now
        _apply(self, job, skip=("status",))


@dataclass(frozen=True, slots=True)
class JobUpdate:
    """Fields of a job that has not moved: its stage and how far it is, who finalizes it,
    when the reconciler requeued its steps. ``finalize_worker``, ``finalize_pid`` and
    ``requeued`` are kept for whoever reads the record (an operator), never read back."""

    stage: str | None = None
    stage_progress: float | None = None
    finalize_worker: str | None = None
    finalize_pid: int | None = None
    requeued: float | None = None

    def fields(self) -> JsonObject:
        return _set_fields(self)

    def apply(self, job: Job, now: float) -> None:
        _apply(self, job)
        job.updated = now


@dataclass(frozen=True, slots=True)
class SegmentUpdate(SegmentFields):
    """Fields of one segment's state (SegmentRecord's), the others left as they are."""

    def fields(self) -> JsonObject:
        return _set_fields(self)

    def applied(self, current: SegmentRecord) -> SegmentRecord:
        """The segment's state with this update over ``current``."""
        # Any: each value is the very field's (same names, same types), which mypy cannot
        # follow through a dict.
        changed: dict[str, Any] = {
            n: copy.deepcopy(v) for n, v in vars_of(self).items() if v is not None
        }
        return replace(current, **changed)


def vars_of(change: object) -> dict[str, object]:
    """A slotted dataclass's fields by name (``vars`` needs a ``__dict__``)."""
    return {f.name: getattr(change, f.name) for f in fields(change)}  # type: ignore[arg-type]

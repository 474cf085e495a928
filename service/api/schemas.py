"""Response models: what the API promises, and what /docs shows."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from service.domain.job import JobStatus
from service.domain.notices import Notice

M = TypeVar("M", bound=BaseModel)


def from_record(model: type[M], record: object, **given: object) -> M:
    """``model`` showing ``record``: each field ``given`` as given, every other one the
    record's attribute of that name. A response shows its record's fields by their own names,
    so a view writes out only what it renames or computes. A field neither given nor on the
    record is an AttributeError, even one with a default: a renamed attribute never drops a
    field unseen."""
    unknown = given.keys() - model.model_fields.keys()
    if unknown:
        raise TypeError(f"{model.__name__} has no field {', '.join(sorted(unknown))}")
    return model.model_validate(
        {
            name: given[name] if name in given else getattr(record, name)
            for name in model.model_fields
        }
    )


class Links(BaseModel):
    self: str
    artifacts: dict[str, str] = {}


class Created(BaseModel):
    id: str
    status: str
    links: Links


class SegmentState(BaseModel):
    index: int
    state: str
    engine: str | None = None
    voice: str | None = None
    worker: str | None = None
    native_rate: float | None = None
    stretch_ratio: float | None = None
    tts_calls: int | None = None
    warnings: list[Notice] = []


class JobOut(BaseModel):
    id: str
    status: JobStatus
    progress: float
    stage: str
    created: float
    updated: float
    title: str
    segments: list[SegmentState]
    engines: list[str | None]
    timings: dict[str, float]
    warnings: list[Notice]
    error: Notice | None  # {code, message, segment}: why it failed or was canceled
    artifacts: list[str]
    links: Links
    parent: str | None = None
    batch: str | None = None  # the batch it was submitted in (/v1/batches/{batch})


class JobList(BaseModel):
    jobs: list[JobOut]
    next_cursor: str | None  # opaque: pass it back as ``cursor`` for the next page


class Voice(BaseModel):
    id: str
    engine: str
    language: str
    gender: str
    default: bool
    locale: str = ""
    name: str = ""
    note: str = ""  # provenance to know before publishing with it (kokoro's voices)


class ProblemItem(BaseModel):
    code: str  # stable: docs/reference/errors.md
    msg: str  # the sentence a person reads, naming the field
    loc: list[str | int]  # where: the path in the job spec, or FastAPI's ["query", ...]


class Problem(BaseModel):
    # 422: a list of problems; every other status: one sentence.
    detail: str | list[ProblemItem]


class Health(BaseModel):
    status: str
    checks: dict[str, bool | int | float | None] = {}  # redis, workers, ...: JobService.readiness

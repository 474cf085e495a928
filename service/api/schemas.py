"""Response models: what the API promises, and what /docs shows."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


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
    warnings: list[str] = []


class JobOut(BaseModel):
    id: str
    status: str
    progress: float
    stage: str
    created: float
    updated: float
    title: str
    segments: list[SegmentState]
    engines: list[str | None]
    timings: dict[str, float]
    warnings: list[str]
    error: str | None
    artifacts: list[str]
    links: Links
    parent: str | None = None


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


class Problem(BaseModel):
    # A sentence for our own errors; FastAPI's request validation gives a list of items.
    detail: str | list[dict[str, Any]]


class Health(BaseModel):
    status: str
    checks: dict[str, Any] = {}

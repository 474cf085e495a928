"""A job as the stores keep it: the record's fields (text, numbers, JSON text for the
structured ones, as a Redis hash holds them) and each segment's state as JSON, at the
current schema version; reading upgrades an older record first (service/domain/schemas.py).
Both job stores (Redis and memory) write and read through here (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields, replace

from pydantic import TypeAdapter

from service.domain import schemas
from service.domain.job import Job, JobStatus, SegmentRecord
from service.domain.job_changes import SegmentUpdate
from service.domain.notices import Notice
from service.domain.wire import JsonObject, JsonValue

FieldValue = str | int | float  # what a hash field holds: numbers and text as they are
_WARNINGS = TypeAdapter(list[Notice])
_SEGMENT_FIELDS = tuple(f.name for f in fields(SegmentRecord))


def field_value(value: JsonValue) -> FieldValue:
    """A hash field's value: numbers and text as they are, anything else (notices, lists,
    objects) as JSON."""
    if isinstance(value, str | int | float):
        return value
    return json.dumps(value, ensure_ascii=False)


def new_record(job: Job, idem_key: str) -> dict[str, FieldValue]:
    """A new job's fields, as the store's create keeps them (queued, whatever ``job`` says)."""
    return {
        "id": job.id,
        "tenant": job.tenant,
        "status": JobStatus.QUEUED.value,
        "created": job.created,
        "created_ms": int(job.created * 1000),
        "updated": job.created,
        "has_video": int(job.has_video),
        "has_music": int(job.has_music),
        "segments_total": job.segments_total,
        "warnings": field_value(_WARNINGS.dump_python(job.warnings, mode="json")),
        "idem": idem_key,
        "parent": job.parent or "",
        "batch": job.batch or "",
        "plan": job.planned if isinstance(job.planned, str) else job.planned.model_dump_json(),
        schemas.SCHEMA_FIELD: schemas.current(schemas.JOB),
    }


def read_job(data: Mapping[str, str], segs: Mapping[str, str]) -> Job | None:
    """The job from its record and its segments' states; None for an absent one (or the
    stray field a write left of a deleted one)."""
    if "id" not in data:
        return None
    record: JsonObject = dict(data)
    r = _text(schemas.upgrade(schemas.JOB, record))
    status = JobStatus(r["status"])
    return Job(
        id=r["id"],
        tenant=r["tenant"],
        status=status,
        created=float(r["created"]),
        updated=float(r["updated"]),
        planned=r["plan"],
        has_video=r.get("has_video") == "1",
        has_music=r.get("has_music") == "1",
        segments_total=int(r["segments_total"]),
        error=Notice.model_validate_json(r["error"]) if r.get("error") else None,
        warnings=_WARNINGS.validate_json(r.get("warnings") or "[]"),
        timings=json.loads(r.get("timings") or "{}"),
        artifacts=json.loads(r.get("artifacts") or "[]"),
        stage=r.get("stage", ""),
        stage_progress=float(r.get("stage_progress") or 0),
        segments={int(k): read_segment(v) for k, v in segs.items()},
        parent=r.get("parent") or None,
        batch=r.get("batch") or None,
    )


def _text(record: JsonObject) -> dict[str, str]:
    """The upgraded record's fields as the text a hash holds."""
    return {k: v if isinstance(v, str) else str(field_value(v)) for k, v in record.items()}


def read_segment(raw: str | None) -> SegmentRecord:
    data = json.loads(raw) if raw else {}
    upgraded = schemas.upgrade(schemas.SEGMENT, data if isinstance(data, dict) else {})
    known = {k: v for k, v in upgraded.items() if k in _SEGMENT_FIELDS}
    segment = SegmentRecord(**known)  # type: ignore[arg-type]
    if segment.warnings is None:
        return segment
    return replace(segment, warnings=_WARNINGS.validate_python(segment.warnings))


def segment_json(segment: SegmentRecord) -> JsonObject:
    """The segment's state as its events and the API show it: the fields it has."""
    return SegmentUpdate(**{n: getattr(segment, n) for n in _SEGMENT_FIELDS}).fields()


def write_segment(segment: SegmentRecord) -> str:
    """The segment's state as the store keeps it (with its schema version)."""
    return json.dumps(schemas.stamped(schemas.SEGMENT, segment_json(segment)), ensure_ascii=False)

"""Every persisted model's schema version, and the one registry of upgrades from older ones
(as OpenTimelineIO registers its schema upgrades): a function per (schema, version) step
takes a record of ``version - 1`` and returns it at ``version``. A record carries its version
in ``schema`` (``SCHEMA_FIELD``); one without is version 1, what every version wrote before
records were versioned, in any of the shapes they had (so each step leaves a record already
in its new shape as it is). Reading a record runs the steps from its version to the current
one, in order; nothing else in the code knows an older shape (pure)."""

from __future__ import annotations

import json
from collections.abc import Callable

from pydantic_core import to_jsonable_python

from service.domain.style import DEFAULT_STYLE
from service.domain.wire import JsonObject, JsonValue

SCHEMA_FIELD = "schema"
Upgrade = Callable[[JsonObject], JsonObject]
_UPGRADES: dict[str, dict[int, Upgrade]] = {}


def upgrades(schema: str, version: int) -> Callable[[Upgrade], Upgrade]:
    """Register ``fn`` as the step of ``schema`` to ``version`` (from ``version - 1``)."""

    def register(fn: Upgrade) -> Upgrade:
        steps = _UPGRADES.setdefault(schema, {})
        if version < 2 or version in steps:
            raise ValueError(f"schema {schema!r}: step to version {version} taken or invalid")
        steps[version] = fn
        return fn

    return register


def current(schema: str) -> int:
    """The version records of ``schema`` are written at: its last step's (1: none yet)."""
    return max(_UPGRADES.get(schema, {}), default=1)


def version_of(record: JsonObject) -> int:
    raw = record.get(SCHEMA_FIELD)
    return int(raw) if isinstance(raw, int | str) and str(raw).isdigit() else 1


def upgrade(schema: str, record: JsonObject) -> JsonObject:
    """``record`` at the current version of ``schema`` (a record of a later version, written
    by a newer release, is read as it is: its fields are a superset)."""
    steps = _UPGRADES.get(schema, {})
    start = version_of(record)
    for version in range(start + 1, current(schema) + 1):
        record = steps[version](dict(record))
    return record


def stamped(schema: str, record: JsonObject) -> JsonObject:
    """``record`` with the version it is written at."""
    return {**record, SCHEMA_FIELD: current(schema)}


def registered() -> dict[str, list[tuple[int, str]]]:
    """Every step by schema: (version, the step's first docstring line), for the docs and
    the tests."""
    return {
        schema: [
            (v, (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else fn.__name__)
            for v, fn in sorted(steps.items())
        ]
        for schema, steps in sorted(_UPGRADES.items())
    }


# -- the steps --------------------------------------------------------------------------------
# The job record is the Redis hash's fields (text; structured fields as JSON text), read by
# service/domain/job_record.py. Its segments' states, and the segment results the workers hand
# each other (service/pipeline/results.py), are JSON objects.
JOB, SEGMENT, SEGMENT_RESULT = "job", "segment", "segment_result"
BATCH = "batch"  # service/domain/batch.py: at version 1, no step yet
DELIVERY = "delivery"  # a webhook delivery in the outbox (adapters/redis/webhooks.py)


def _sentences_as_notices(items: JsonValue) -> list[JsonValue]:
    """Warnings kept as plain sentences (before notices were typed): warnings of code
    ``warning``."""
    if not isinstance(items, list):
        return []
    return [{"code": "warning", "message": w} if isinstance(w, str) else w for w in items]


def _loads(raw: JsonValue) -> JsonValue:
    converted: JsonValue = json.loads(raw) if isinstance(raw, str) and raw else None
    return converted


def _dumps(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)


@upgrades(JOB, 2)
def _typed_error(record: JsonObject) -> JsonObject:
    """error: a plain sentence (stored before errors were typed) becomes a notice whose code
    says how the job ended."""
    raw = record.get("error")
    if isinstance(raw, str) and raw:
        try:
            parsed = json.loads(raw) if raw.startswith("{") else None
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            ended = record.get("status")
            code = "canceled" if ended == "canceled" else "failed"
            record["error"] = _dumps({"code": code, "message": raw, "segment": None})
    return record


@upgrades(JOB, 3)
def _typed_warnings(record: JsonObject) -> JsonObject:
    """warnings (the record's and its plan's): plain sentences become notices."""
    if record.get("warnings"):
        record["warnings"] = _dumps(_sentences_as_notices(_loads(record["warnings"])))
    plan = _loads(record.get("plan"))
    if isinstance(plan, dict) and plan.get("warnings"):
        plan["warnings"] = _sentences_as_notices(plan["warnings"])
        record["plan"] = _dumps(plan)
    return record


@upgrades(JOB, 4)
def _planned(record: JsonObject) -> JsonObject:
    """plan: a record stored before plans were kept gets one of its spec and options alone,
    with no voices: the steps plan it again (JobPlan.complete), its video probed in
    finalize."""
    if not record.get("plan"):
        plan = {
            "spec": _loads(record.get("spec")),
            "options": _loads(record.get("options")) or {},
            "voices": [],
            "style": to_jsonable_python(DEFAULT_STYLE),
        }
        record["plan"] = _dumps(plan)
    return record


@upgrades(JOB, 5)
def _no_copies(record: JsonObject) -> JsonObject:
    """spec and options: copies of the plan's, no longer kept beside it."""
    record.pop("spec", None)
    record.pop("options", None)
    return record


@upgrades(SEGMENT, 2)
def _segment_notices(record: JsonObject) -> JsonObject:
    """warnings: plain sentences become notices."""
    if "warnings" in record:
        record["warnings"] = _sentences_as_notices(record["warnings"])
    return record


@upgrades(DELIVERY, 2)
def _delivery_endpoint(record: JsonObject) -> JsonObject:
    """endpoint: a delivery queued with none named is to the job's own webhook_url ("")."""
    record.setdefault("endpoint", "")
    return record


@upgrades(SEGMENT_RESULT, 2)
def _phrase_rows(record: JsonObject) -> JsonObject:
    """phrases kept as [start, end, start_ms, end_ms] rows (an earlier version) become
    phrases; warnings kept as sentences become notices."""
    names = ("start", "end", "start_ms", "end_ms")
    for key in ("phrases", "words"):
        rows = record.get(key)
        if isinstance(rows, list):
            record[key] = [
                dict(zip(names, p, strict=True)) if isinstance(p, list) else p for p in rows
            ]
    if "warnings" in record:
        record["warnings"] = _sentences_as_notices(record["warnings"])
    return record

"""Structured logging: the job, tenant and segment a line is about, as fields of every record
(``bind`` sets them where a step starts; adapters log as usual), and one line of JSON per
record when ``NARRATE_LOG_FORMAT=json`` (for a log shipper) or ``key=value`` text otherwise."""

from __future__ import annotations

import json
import logging
import time
from contextvars import ContextVar
from typing import Any, Literal, TypedDict, Unpack

Field = Literal["job", "tenant", "segment"]
FIELDS: tuple[Field, ...] = ("job", "tenant", "segment")


class Bound(TypedDict, total=False):
    """What a record is about; None (to ``bind``) drops a field."""

    job: str | None
    tenant: str | None
    segment: int | None  # 1-based


_context: ContextVar[Bound | None] = ContextVar("narrate_log_context", default=None)


def bind(**fields: Unpack[Bound]) -> None:
    """What this thread's (or task's) records are about from now on; None drops a field."""
    current: Bound = {**(_context.get() or {}), **fields}
    for name in FIELDS:
        if name in current and current[name] is None:
            del current[name]
    _context.set(current)


def clear() -> None:
    _context.set(None)


def context() -> Bound:
    return Bound(**(_context.get() or {}))


class ContextFilter(logging.Filter):
    """Puts the bound fields on each record (``record.job`` ...; absent: empty)."""

    def filter(self, record: logging.LogRecord) -> bool:
        bound = _context.get() or {}
        for name in FIELDS:
            if not hasattr(record, name):
                setattr(record, name, bound.get(name, ""))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the bound fields, and any
    ``extra=`` fields the call passed."""

    _PLAIN = frozenset(vars(logging.makeLogRecord({})))

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {  # wire format: the line a log shipper reads, extra= fields and all
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        out.update(
            (k, v)
            for k, v in vars(record).items()
            if k not in self._PLAIN and k != "message" and v not in ("", None)
        )
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The message, then ``key=value`` for each bound field that is set."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(
            f"{name}={getattr(record, name)}" for name in FIELDS if getattr(record, name, "")
        )
        return f"{line} {fields}" if fields else line


def configure(fmt: str = "text", level: int = logging.INFO, prefix: str = "") -> None:
    """Give the ``narrate`` loggers a stderr handler in ``fmt`` (``text`` or ``json``). Other
    libraries' loggers are left to their own configuration (Celery's, uvicorn's); records
    still propagate, to a root handler if a host program set one."""
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            TextFormatter(f"%(asctime)s {prefix}%(levelname)s %(name)s %(message)s")
        )
    root = logging.getLogger("narrate")
    root.handlers[:] = [handler]  # called again (a re-import, a test): still one handler
    root.setLevel(level)

"""Structured logs: the job, tenant and segment a step works on ride on every record an
adapter logs (an edge retry, a breaker opening), as JSON fields or key=value text."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from service import logs
from service.adapters.tts.guard import LocalGuard


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, logging.Handler]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.ContextFilter())
    logger = logging.getLogger("narrate")
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    yield stream, handler
    logger.removeHandler(handler)
    logger.setLevel(old)
    logs.clear()


def test_a_breaker_opening_is_logged_as_json_with_the_job_it_happened_in(
    captured: tuple[io.StringIO, logging.Handler],
) -> None:
    stream, handler = captured
    handler.setFormatter(logs.JsonFormatter())
    logs.bind(job="j1", tenant="alpha", segment=3)
    guard = LocalGuard(limit=2, failures=2, cooldown=30)
    guard.failure()
    assert stream.getvalue() == ""  # one failure: still closed
    guard.failure()
    record = json.loads(stream.getvalue().strip().splitlines()[-1])
    assert record["level"] == "warning" and record["logger"] == "narrate.tts.guard"
    assert "circuit breaker open for 30 s: 2 consecutive failures" in record["message"]
    assert (record["job"], record["tenant"], record["segment"]) == ("j1", "alpha", 3)
    assert not guard.allow()


def test_text_lines_carry_the_bound_fields_and_none_drops_one(
    captured: tuple[io.StringIO, logging.Handler],
) -> None:
    stream, handler = captured
    handler.setFormatter(logs.TextFormatter("%(levelname)s %(name)s %(message)s"))
    log = logging.getLogger("narrate.jobs")
    logs.bind(job="j2", tenant="beta", segment=1)
    log.warning("segment retried")
    logs.bind(segment=None)  # finalize: the job, no segment
    log.warning("finalize started")
    logs.clear()
    log.warning("between jobs")
    assert stream.getvalue().splitlines() == [
        "WARNING narrate.jobs segment retried job=j2 tenant=beta segment=1",
        "WARNING narrate.jobs finalize started job=j2 tenant=beta",
        "WARNING narrate.jobs between jobs",
    ]


def test_configure_installs_one_handler_however_often_it_is_called() -> None:
    logs.configure("json")
    logs.configure("json")
    handlers = logging.getLogger("narrate").handlers
    try:
        assert len(handlers) == 1 and isinstance(handlers[0].formatter, logs.JsonFormatter)
    finally:
        logging.getLogger("narrate").handlers.clear()

"""Fault injection for the service tests: the worker and API entry points the fault stacks
run (``celery -A tests.support.faults:worker_app``, ``uvicorn tests.support.faults:api_app``).

NARRATE_TEST_FAULTS, comma-separated: segment_sleep=S and finalize_sleep=S (a step that
takes that much longer), crash_on=WORD (a segment whose text holds WORD kills its worker
process), bug_on=WORD (such a segment raises a plain Python error), submit_sleep=S (the API's
submit step, after the body is read). The faults wrap the pipeline the composition root
builds, so each lands where the step calls it.

Gates (always on in a fault stack; devtools.stack.Gate is the test's side): a segment whose
text holds ``SEGHOLD<NAME>`` waits at gate NAME before it renders, a job's finalize waits at
NAME when one of its segments holds ``FINHOLD<NAME>``, a submit whose script holds
``APIHOLD<NAME>`` waits at NAME after its body is read, and with the fault cancel_gate=NAME
the API's batch cancel waits at NAME after it has read the items, before it writes a cancel
(items can then end between the two). A test that needs a job still running holds it there
and releases it, rather than sleeping "long enough"."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from service import wiring
from service.domain.job_changes import Transition
from service.pipeline import Handoff, JobPlan, Pipeline, Rendered, SegmentResult
from service.pipeline.door import Planner
from service.ports import Workspace


def fault(name: str) -> str:
    """A fault's value ("" when unset; "1" when set without a value)."""
    for item in os.environ.get("NARRATE_TEST_FAULTS", "").split(","):
        key, _, value = item.partition("=")
        if key.strip() == name:
            return value.strip() or "1"
    return ""


def _sleep(name: str) -> None:
    if delay := fault(name):
        time.sleep(float(delay))


def _hold(kind: str, text: str) -> None:
    """Wait at every gate ``text`` names for ``kind`` (SEG, FIN, API) until the test opens it
    (or the stack stops: the ALL gate). Capped, so a test that forgets cannot hang a worker."""
    root = Path(os.environ.get("NARRATE_TEST_GATES", "/nonexistent"))
    for name in re.findall(rf"{kind}HOLD([A-Z0-9]+)", text):
        root.mkdir(parents=True, exist_ok=True)
        # Which machine's process arrived (its data dir): a test can kill the holder.
        (root / f"{name}.reached").write_text(os.environ.get("NARRATE_DATA_DIR", ""))
        deadline = time.monotonic() + 600
        while not ((root / f"{name}.open").exists() or (root / "ALL.open").exists()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"gate {name} never opened")
            time.sleep(0.02)


class FaultyPipeline(Pipeline):
    """The real pipeline, with the faults injected where a step calls it."""

    def render_segment(self, plan: JobPlan, index: int, work: Workspace) -> SegmentResult:
        _sleep("segment_sleep")
        text = plan.spec.segments[index].text
        _hold("SEG", text)
        if (word := fault("crash_on")) and word in text:
            os._exit(77)  # a task that kills its worker every time
        if (word := fault("bug_on")) and word in text:
            raise OverflowError("math range error (injected)")  # a plain bug
        return super().render_segment(plan, index, work)

    def finalize(self, handoff: Handoff) -> Rendered:
        _sleep("finalize_sleep")
        _hold("FIN", " ".join(s.text for s in handoff.plan.spec.segments))
        return super().finalize(handoff)


class SlowSubmitPlanner(Planner):
    """The real door, with the faults injected where a submission is planned."""

    def plan(self, spec: Any, *args: Any, **kwargs: Any) -> JobPlan:
        _sleep("submit_sleep")
        _hold("API", " ".join(s.text for s in spec.segments))
        return super().plan(spec, *args, **kwargs)


def faulty(pipeline: Pipeline) -> None:
    pipeline.__class__ = FaultyPipeline


def slow_submit(pipeline: Pipeline) -> None:
    door = pipeline.door
    pipeline.door = SlowSubmitPlanner(
        door.settings, door.engines, door.media, door.catalog, door.styles
    )


def _pipeline_with(change: Callable[[Pipeline], None]) -> Callable[..., Pipeline]:
    """wiring.pipeline (its signature), each pipeline it builds changed by ``change``."""
    real = wiring.pipeline

    def build(*args: Any, **kwargs: Any) -> Pipeline:  # whatever wiring.pipeline takes
        pipeline = real(*args, **kwargs)
        change(pipeline)
        return pipeline

    return build


@cache
def _worker() -> Any:
    wiring.pipeline = _pipeline_with(faulty)
    from workers.celery_app import app

    return app


def _cancel_gate() -> None:
    """Hold a batch's cancels (written after its items were read) at gate cancel_gate."""
    if not (name := fault("cancel_gate")):
        return
    from service.adapters.redis.jobstore import JobStore

    many, one = JobStore.advance_many, JobStore.advance

    def advance_many(self: Any, job_ids: Any, to: Transition) -> list[bool]:
        if to.status == "canceled":
            _hold("CANCEL", f"CANCELHOLD{name}")
        return many(self, job_ids, to)

    def advance(self: Any, job_id: str, to: Transition) -> bool:
        if to.status == "canceled":  # a cancel written one job at a time: held the same
            _hold("CANCEL", f"CANCELHOLD{name}")
        return one(self, job_id, to)

    JobStore.advance_many = advance_many  # type: ignore[method-assign]
    JobStore.advance = advance  # type: ignore[method-assign]


@cache
def _api() -> Any:
    wiring.pipeline = _pipeline_with(slow_submit)
    _cancel_gate()
    from service.api.app import create_app

    return create_app()


def __getattr__(name: str) -> Any:
    """Build an entry point only when its process asks for it."""
    if name == "worker_app":
        return _worker()
    if name == "api_app":
        return _api()
    raise AttributeError(name)

"""Job records for tests that need one without planning it: a plan of a spec with one
segment per ``n`` (each with a voice chain), the default style."""

from __future__ import annotations

import time
from typing import Any

from service.domain.job import Job, JobStatus
from service.domain.job_changes import Transition
from service.domain.plan import JobPlan
from service.domain.spec import JobSpec, RenderOptions
from service.domain.style import DEFAULT_STYLE


def plan_of(title: str = "", n: int = 2, **options: Any) -> JobPlan:
    segments = [{"text": f"第{i + 1}段。", "seconds": 2.0} for i in range(max(1, n))]
    spec = JobSpec.model_validate({"title": title, "segments": segments})
    return JobPlan(
        spec=spec,
        options=RenderOptions.model_validate(options),
        voices=[("espeak:cmn",)] * len(segments),
        style=DEFAULT_STYLE,
    )


def make_job(
    job_id: str,
    tenant: str = "alpha",
    created: float | None = None,
    title: str | None = None,
    n: int = 2,
    options: dict[str, Any] | None = None,
    **kw: Any,
) -> Job:
    now = time.time() if created is None else created
    return Job(
        id=job_id,
        tenant=tenant,
        status=JobStatus.QUEUED,
        created=now,
        updated=now,
        planned=plan_of(job_id if title is None else title, n, **(options or {})),
        has_video=False,
        segments_total=n,
        **kw,
    )


def to(status: str, **fields: Any) -> Transition:
    """A move to ``status`` (by its name) with these fields."""
    return Transition(JobStatus(status), **fields)

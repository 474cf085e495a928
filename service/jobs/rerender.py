"""A re-render: a new job from an edited spec with the parent's video, music and (by
default) options, and its recorded takes of the segments whose text did not change. The
studio's "render again" (POST /v1/jobs/{id}/rerender) and the MCP tool rerender_segment
both come here (the studio's through ``Studio.rerender``, service/jobs/studio.py)."""

from __future__ import annotations

from pathlib import Path

from service.domain.errors import InputError
from service.domain.job import Job
from service.domain.spec import JobSpec, RenderOptions
from service.domain.takes import kept_takes
from service.jobs.service import JobService, Submission


def rerender(
    service: JobService, parent: Job, new_id: str, spec: JobSpec, options: RenderOptions | None
) -> Job:
    """The re-render as a stored, queued job (blocking: in a worker thread)."""
    options = options or parent.submitted
    # The parent's video and music (the same bed under the fixed narration), copied within
    # the storage (a hard link, a server-side copy), then checked at the door as uploads are.
    inputs: dict[str, Path | None] = {"video": None, "music": None}
    work = service.workspace(parent.tenant, new_id)
    try:
        for kind, has in (("video", parent.has_video), ("music", parent.has_music)):
            if has:
                if not service.copy_input(parent.tenant, parent.id, new_id, kind):
                    raise InputError(f"the original {kind} is gone: submit the job again")
                inputs[kind] = work.input(kind)
        takes: dict[str, Path] = {}  # recorded takes of the segments whose text is unchanged
        for kind in _kept_takes(parent, spec):
            if service.copy_input(parent.tenant, parent.id, new_id, kind):
                takes[kind] = work.input(kind)
        ask = Submission(
            parent.tenant, new_id, spec, options, inputs["video"], takes, inputs["music"], parent.id
        )
        child, _ = service.submit(ask)
    finally:
        work.close()
    return child


def _kept_takes(parent: Job, spec: JobSpec) -> list[str]:
    """The parent plan's takes (JobPlan.takes, as stored) the re-render keeps."""
    old = [s.text for s in parent.spec.segments]
    return kept_takes(list(parent.plan.takes), old, [s.text for s in spec.segments])

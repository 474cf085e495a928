"""The whole job in one process (`narrate render`): every segment on a thread pool, then
finalize, in a workspace on the local disk (the LocalWork port) beside the output directory."""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from service.domain.job import SYNTH_SHARE
from service.pipeline.context import Handoff
from service.pipeline.manifest import Rendered
from service.pipeline.results import JobPlan, Progress, SegmentResult, staged_artifacts
from service.ports import Workspace
from service.ports.finishing import LocalWork


class Steps(Protocol):
    """The two steps of a job (the Pipeline)."""

    def render_segment(self, plan: JobPlan, index: int, work: Workspace) -> SegmentResult: ...

    def finalize(self, handoff: Handoff) -> Rendered: ...


def render_locally(
    pipeline: Steps,
    scratch: LocalWork,
    plan: JobPlan,
    outdir: Path,
    video: Path | None,
    progress: Progress,
    parallel: int,
    music: Path | None = None,
    takes: dict[str, Path] | None = None,
) -> Rendered:
    """Artifacts appear in ``outdir`` only on success, each by a rename."""
    outdir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{outdir.name}.", dir=outdir.parent) as tmp:
        # Where a segment step finds its take; ffmpeg sees only a name we generated.
        inputs = {**(takes or {}), **({"video": video} if video is not None else {})}
        work, staged = scratch.workspace(Path(tmp), inputs), Path(tmp, "out")
        staged.mkdir()
        local_video = work.input("video") if video is not None else None
        n = len(plan.spec.segments)
        done = 0

        def one(i: int) -> SegmentResult:
            nonlocal done
            res = pipeline.render_segment(plan, i, work)
            done += 1
            progress(SYNTH_SHARE * done / n, f"segment {done}/{n}")
            return res

        progress(0.0, "synthesize")
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            results = list(pool.map(one, range(n)))
        rendered = pipeline.finalize(
            Handoff(plan, results, work, staged, local_video, progress, music)
        )
        outdir.mkdir(parents=True, exist_ok=True)
        for name in staged_artifacts(staged):
            (outdir / name).parent.mkdir(parents=True, exist_ok=True)
            (staged / name).replace(outdir / name)
    return rendered

"""The storage port: the pipeline's intermediate files go through a Workspace, so segments
rendered on one machine and finalized on another (an object store between them) work with
no change to the pipeline; and the local adapter's own rules.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/adapters/test_storage.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from service import wiring
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.pipeline import Handoff, SegmentResult
from tests.support.data import SHORT_SCRIPT
from tests.unit.adapters.test_storage import BucketWorkspace


def test_segments_rendered_on_one_machine_finalize_on_another(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", tts_cache=False)
    pipeline = wiring.pipeline(settings)
    plan = pipeline.door.plan(parse_markdown(SHORT_SCRIPT), RenderOptions(engine="espeak"))
    bucket = tmp_path / "bucket"
    first = BucketWorkspace(tmp_path / "machine-a", bucket)
    stored = [
        pipeline.render_segment(plan, i, first).to_json() for i in range(len(plan.spec.segments))
    ]
    shutil.rmtree(first.dir)  # machine A is gone: only what it kept remains
    second = BucketWorkspace(tmp_path / "machine-b", bucket)
    out = tmp_path / "out"
    out.mkdir()
    results = [SegmentResult.from_json(s) for s in stored]
    rendered = pipeline.finalize(Handoff(plan, results, second, out))
    assert sorted(second.fetched) == sorted(r.audio for r in results)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == json.loads(rendered.manifest.to_json()) and manifest["duration"] > 0
    assert (out / "narration.wav").stat().st_size > 44 and (out / "subtitles.srt").is_file()

"""A picture encode (burn-in, frozen last frame) reports itself as the stage ``encode NN%``
with the share of its frames done, not as the loudness stage that ran before it.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/pipeline/test_encode_progress.py."""

from __future__ import annotations

from pathlib import Path

from service import wiring
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from tests.support.data import SHORT_SCRIPT, make_video


def test_a_burn_in_render_reports_the_encode_and_its_percentage(tmp_path: Path) -> None:
    pipeline = wiring.pipeline(Settings(data_dir=tmp_path / "data"))
    video = make_video(tmp_path / "clip.mp4", 12, size="360x640")
    plan = pipeline.door.plan(
        parse_markdown(SHORT_SCRIPT), RenderOptions(engine="espeak", burn_in=True), video
    )
    stages: list[str] = []
    pipeline.render(plan, tmp_path / "out", video, lambda f, s: stages.append(s))
    encode = [s for s in stages if s.startswith("encode ")]
    pct = [int(s.split()[1].rstrip("%")) for s in encode]
    assert pct and pct == sorted(pct) and pct[-1] == 100, stages
    first = stages.index(encode[0])
    assert "loudness" in stages[:first] and "loudness" not in stages[first:]
    assert stages.index("mux") > stages.index(encode[-1])

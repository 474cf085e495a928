"""Burn-in without a second pass on the critical path: the picture is re-encoded by ffmpeg
(it needs only the subtitles) while the narration is mixed and normalised, and the mux
stream-copies that picture.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/pipeline/test_media_split.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from service import wiring
from service.config import Settings
from service.domain.errors import CanceledError
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.pipeline import stages
from service.pipeline.context import Finish, Tools
from tests.support.data import SHORT_SCRIPT, make_video
from tests.support.helpers import ffprobe, stream_md5
from tests.unit.pipeline.test_media_split import Recording


@pytest.mark.parametrize("burn_in", [True, False])
def test_burn_in_encodes_while_the_narration_is_normalised(tmp_path: Path, burn_in: bool) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    events: list[str] = []
    pipeline = wiring.pipeline(settings, Recording(settings, events))

    def watched(tools: Tools, run: Finish) -> None:
        events.append("mix started")
        try:
            stages.mix(tools, run)
        finally:
            events.append("mix done")

    pipeline.finalizer.replaced("mix", watched)
    video = make_video(tmp_path / "clip.mp4", 11, size="360x640", fps=10)
    plan = pipeline.door.plan(
        parse_markdown(SHORT_SCRIPT), RenderOptions(engine="espeak", burn_in=burn_in), video
    )
    out = tmp_path / "out"
    pipeline.render(plan, out, video)
    if burn_in:
        assert events == [
            "encode started",
            "mix started",
            "mix done",
            "mux copying picture.mp4 + sound.m4a",  # the AAC made as the narration was
        ]
    else:
        assert events == ["no encode", "mix started", "mix done", "mux copying sound.m4a"]
        assert stream_md5(out / "video.mp4") == stream_md5(video)  # soft: the source, copied
    streams = {s["codec_type"]: s for s in ffprobe(out / "video.mp4")["streams"]}
    assert set(streams) == {"video", "audio", "subtitle"}
    assert streams["subtitle"]["codec_name"] == "mov_text"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert abs(manifest["loudness"]["integrated_lufs"] + 16) <= 0.2
    # Nothing left running or lying around.
    assert not subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True).stdout


def test_a_cancel_while_the_narration_is_mixed_stops_the_encode_beside_it(tmp_path: Path) -> None:
    """90 s of narration over a burn-in: the job's check, asked as the mix reads its track,
    raises; the mix ends there, the picture's ffmpegs are killed, nothing is published."""
    settings = Settings(data_dir=tmp_path / "data")
    phase: list[str] = []
    asked: list[str] = []

    def check() -> None:
        asked.append(phase[-1] if phase else "before the mix")
        raise CanceledError("the job was canceled")

    def checked(tools: Tools, run: Finish) -> None:  # the job's check, as a worker gives it
        run.check = check
        stages.speech_check(tools, run)

    pipeline = wiring.pipeline(settings)
    pipeline.finalizer.replaced("speech check", checked)

    def watched(tools: Tools, run: Finish) -> None:
        phase.append("mixing")
        try:
            stages.mix(tools, run)
        finally:
            phase.append("mixed")

    pipeline.finalizer.replaced("mix", watched)
    # Three long slots: the length is the point (a mix of many blocks), not how much is said.
    script = "\n\n".join(f"[段 {i} · 30 秒] 第{i}段:评分员对通过的轨迹排序。" for i in range(1, 4))
    # Small and slow: its encode is stopped as the mix starts, whatever its frame.
    video = make_video(tmp_path / "clip.mp4", 90, size="180x320", fps=10)
    plan = pipeline.door.plan(
        parse_markdown(script), RenderOptions(engine="espeak", burn_in=True), video
    )
    with pytest.raises(CanceledError):
        pipeline.render(plan, tmp_path / "out", video)
    assert asked == ["mixing"]  # asked once, while mixing: not only once the mix is done
    assert not subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True).stdout
    assert not (tmp_path / "out").exists()

"""Burned-in subtitles are libass's pictures laid on by one overlay (service/adapters/burn.py):
every frame must look as ffmpeg's subtitles filter draws it, a cue on the very frame it
starts, and the cost is one blend of one box."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from service.adapters.burn import (
    Box,
    Burn,
    box_of,
    canvas_listing,
    marks_of,
    overlay_filters,
    prepare,
)
from service.adapters.probe import parse_probe
from service.config import Settings
from service.domain.subtitles.cues import NARRATION, OVERLAY, SCREEN, TITLE, Cue
from service.domain.subtitles.writers import Canvas, write_ass
from tests.conftest import make_video

BURN = Burn(Path("/w/s.ass"), Path("/w/c.rgb"), 360, 640, (0, 1000, 2500, 4000), Box(0, 0, 2, 2))


def listed(text: str) -> tuple[list[str], list[float]]:
    files = re.findall(r"^file '(.*)'$", text, re.MULTILINE)
    return files, [float(d) for d in re.findall(r"^duration (\S+)$", text, re.MULTILINE)]


def test_a_state_is_drawn_half_a_millisecond_into_it() -> None:
    assert marks_of([(1000, 2500), (2500, 4000), (1000, 4000)]) == (0, 1000, 2500, 4000)
    files, durations = listed(canvas_listing(BURN, None, None))
    assert files == ["/w/c.rgb"] * 4 and "option framerate 1000000" in canvas_listing(
        BURN, None, None
    )
    # Drawn at 0, 1.0005, 2.5005, 4.0005 s: libass truncates each to the state's first ms.
    assert durations == [1.0005, 1.5, 1.5]


def test_a_part_draws_only_its_own_states_from_its_first_frame() -> None:
    # Frames from 1.2 s up to 3.9 s: the state at 1.2 s (drawn at 1.2 s) and the one from 2.5 s.
    files, durations = listed(canvas_listing(BURN, 1.2, 3.9))
    assert len(files) == 2 and durations == [pytest.approx(1.3005)]
    files, durations = listed(canvas_listing(BURN, 2.5, None))  # a state starting on the cut
    assert len(files) == 2 and durations == [pytest.approx(1.5005)]


def test_the_box_holds_every_covered_pixel_on_even_bounds() -> None:
    alpha = np.zeros((640, 360), np.uint8)
    assert box_of(alpha.tobytes(), 360, 640) is None
    alpha[101, 33] = alpha[200:203, 300] = 1
    assert box_of(alpha.tobytes(), 360, 640) == Box(32, 100, 270, 104)
    alpha[639, 359] = 255
    box = box_of(alpha.tobytes(), 360, 640)
    assert box is not None and (box.x + box.w, box.y + box.h) == (360, 640)


def test_a_turned_video_is_sized_as_its_frames_are_shown() -> None:
    stream = {"codec_type": "video", "width": 1920, "height": 1080, "avg_frame_rate": "30/1"}
    data = {"format": {"duration": "9"}, "streams": [stream]}
    assert parse_probe(data, Settings(), "a.mp4").width == 1920
    stream["side_data_list"] = [{"side_data_type": "Display Matrix", "rotation": -90}]
    info = parse_probe(data, Settings(), "a.mp4")
    assert (info.width, info.height) == (1080, 1920)


def psnr(graph: str, inputs: list[str], log: Path) -> list[float]:
    subprocess.run(
        ["ffmpeg", "-v", "error", *inputs, "-filter_complex", f"{graph};[ref][ov]psnr=stats_file={log}",
         "-f", "null", "-"],
        check=True,
    )  # fmt: skip
    values = re.findall(r"psnr_avg:(\S+)", log.read_text())
    return [float("inf") if v == "inf" else float(v) for v in values]


@pytest.mark.integration
def test_every_frame_is_as_libass_draws_it(tmp_path: Path) -> None:
    fps, width, height = 30, 360, 640
    video = make_video(tmp_path / "clip.mp4", 6, size=f"{width}x{height}", audio=False)
    # All four layers, cues starting and ending on frames (as the pipeline times them) and
    # between frames, an overlay meeting a caption, narration chained cue to cue.
    cues = [
        Cue(0, 1000, ("标题卡：测试",), TITLE),
        Cue(0, 2000, ("代码 Agent 的 RL", "用测试当奖励"), NARRATION),
        Cue(2000, 3467, ("评分员对通过的轨迹排序",), NARRATION),
        Cue(3533, 5500, ("低排名降权",), NARRATION),
        Cue(500, 4210, ("限定语：仓库未明确",), OVERLAY),
        Cue(1000, 5000, ("风险卡", "两条限定语"), SCREEN),
    ]
    ass = tmp_path / "subtitles.ass"
    ass.write_text(write_ass(cues, Canvas(width, height)), encoding="utf-8")
    burn = prepare(ass, tmp_path / "canvas.rgb", width, height, Settings())
    assert burn.box is not None and burn.box.w * burn.box.h < width * height * 0.6
    listing = tmp_path / "canvas.txt"
    listing.write_text(canvas_listing(burn, None, None), encoding="utf-8")
    inputs = ["-i", str(video), "-f", "concat", "-safe", "0", "-i", str(listing)]
    # The reference: ffmpeg's subtitles filter, told each frame's time plus half a
    # millisecond, so that its truncation to whole ms never moves a cue off its first frame.
    libass = f"settb=1/1000000,setpts=PTS+500,subtitles=filename={ass},setpts=PTS-500"
    reference = f"[0:v]split[a][b];[a]{libass}[ref];"
    values = psnr(reference + overlay_filters(burn, 1, "[b]") + "[ov]", inputs, tmp_path / "p.log")
    worst = sorted(range(len(values)), key=values.__getitem__)[:5]
    assert len(values) == 6 * fps and min(values) > 50, [(i, values[i]) for i in worst]
    # And text is there: against the bare picture, frames under the cues differ.
    bare = "[0:v]split[ref][b];" + overlay_filters(burn, 1, "[b]") + "[ov]"
    plain = psnr(bare, inputs, tmp_path / "q.log")
    assert max(plain[: 5 * fps]) < 40 and plain[-1] == float("inf")

"""Burned-in subtitles are libass's pictures laid on by one overlay (service/adapters/ffmpeg/burn.py):
every frame must look as ffmpeg's subtitles filter draws it, a cue on the very frame it
starts, and the cost is one blend of one box."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from service.adapters.ffmpeg.burn import (
    CANVAS,
    Box,
    Burn,
    box_of,
    canvas_listing,
    layers,
    listings,
    marks_of,
    overlay_filters,
)
from service.adapters.ffmpeg.probe import ProbeOutput, ProbeStream, parse_probe
from service.config import Settings

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
    # The canvas file is a few pixels (the graph pads it to the picture's size).
    assert f"option video_size {CANVAS}x{CANVAS}\n" in canvas_listing(BURN, None, None)
    # Drawn at 0, 1.0005, 2.5005, 4.0005 s: libass truncates each to the state's first ms.
    assert durations == [1.0005, 1.5, 1.5]


def test_a_part_draws_only_its_own_states_from_its_first_frame() -> None:
    # Frames from 1.2 s up to 3.9 s: the state at 1.2 s (drawn at 1.2 s) and the one from 2.5 s.
    files, durations = listed(canvas_listing(BURN, 1.2, 3.9))
    assert len(files) == 2 and durations == [pytest.approx(1.3005)]
    files, durations = listed(canvas_listing(BURN, 2.5, None))  # a state starting on the cut
    assert len(files) == 2 and durations == [pytest.approx(1.5005)]


def test_word_by_word_narration_is_laid_on_first_over_its_own_band() -> None:
    words = Burn(
        Path("/w/c.words.ass"), Path("/w/c.rgb"), 360, 640, (0, 100, 160, 220), Box(0, 500, 360, 60)
    )
    burn = replace(BURN, ass=Path("/w/c.rest.ass"), under=words)
    assert [b.ass.name for b in layers(burn)] == ["c.words.ass", "c.rest.ass"]
    assert [len(listed(x)[0]) for x in listings(burn, None, None)] == [4, 4]
    graph = overlay_filters(burn, 1, "[0:v]")
    # Input 1 (the narration's states) over the picture, then input 2 (the rest's) over that.
    first, second = graph.split("[burnt0];")
    assert (
        first.startswith("[1:v]pad=360:640:0:0:black@0,subtitles=filename='/w/c.words.ass'")
        and "crop=360:60:0:500" in first
    )
    assert first.endswith("[0:v][text]overlay=0:500:eof_action=repeat")
    assert second.startswith("[2:v]pad=360:640:0:0:black@0,subtitles=filename='/w/c.rest.ass'")
    assert second.endswith("[burnt0][text1]overlay=0:0:eof_action=repeat")
    # A stream without any text is not drawn at all.
    assert layers(replace(burn, box=None)) == (words,)
    assert overlay_filters(BURN, 1, "[0:v]").count("overlay=") == 1


def test_the_box_holds_every_covered_pixel_on_even_bounds() -> None:
    alpha = np.zeros((640, 360), np.uint8)
    assert box_of(alpha.tobytes(), 360, 640) is None
    alpha[101, 33] = alpha[200:203, 300] = 1
    assert box_of(alpha.tobytes(), 360, 640) == Box(32, 100, 270, 104)
    alpha[639, 359] = 255
    box = box_of(alpha.tobytes(), 360, 640)
    assert box is not None and (box.x + box.w, box.y + box.h) == (360, 640)


def test_a_turned_video_is_sized_as_its_frames_are_shown() -> None:
    stream: ProbeStream = {
        "codec_type": "video",
        "width": 1920,
        "height": 1080,
        "avg_frame_rate": "30/1",
    }
    data: ProbeOutput = {"format": {"duration": "9"}, "streams": [stream]}
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

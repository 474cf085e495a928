"""Subtitle styles: presets and per-job overrides reach the ASS styles, the VTT cue settings
and the burned-in picture; SRT stays plain.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/domain/test_styles.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.support.data import make_video
from tests.support.helpers import frame_at, narrate


def test_vertical_safe_burn_in_keeps_text_in_the_safe_area(tmp_path: Path) -> None:
    """A 9:16 burn-in: white narration pixels only above the bottom 25 % and left of the
    right 15 %; red qualifier pixels at the top. Grabbed frames, measured."""
    video = make_video(tmp_path / "v.mp4", 6, fps=10, audio=False)  # one steady frame is read
    script = tmp_path / "s.md"
    script.write_text(
        "[段 1 · 5 秒] 通过测试不等于实现质量好，两者拿到的策略梯度完全一样。\n"
        "字幕层叠加限定语:abstract 未给出具体百分点\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    proc = narrate(
        "render",
        str(script),
        "--out",
        str(out),
        "--engine",
        "espeak",
        "--video",
        str(video),
        "--burn-in",
        "--style",
        "vertical-safe",
        "--on-overflow",
        "squeeze",
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["style"]["preset"] == "vertical-safe"
    frame = frame_at(out / "video.mp4", 2, (1080, 1920))
    r, g, b = frame[..., 0], frame[..., 1], frame[..., 2]
    white = (r > 220) & (g > 220) & (b > 220)
    white[150:330, :] = False  # the test video's moving white box
    red = (r > 200) & (g < 110) & (b < 110)
    ys, xs = np.nonzero(white)
    assert len(ys) > 500, "no narration on the frame"
    assert ys.max() < 1920 * 0.75 and xs.max() < 1080 * 0.85
    assert ys.min() > 1920 * 0.5  # the narration is low, above the band
    ry, _ = np.nonzero(red)
    assert len(ry) > 100 and ry.min() >= 1920 * 0.09 - 2 and ry.max() < 1920 * 0.15

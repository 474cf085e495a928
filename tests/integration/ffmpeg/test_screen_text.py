"""The shot list on screen: each shot's 屏幕文字 as its own layer (title cards mid-frame,
captions under the top layer), the risk card's qualifiers one by one or accumulating, off
for soft subtitles and on for burn-in unless asked otherwise.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/domain/test_screen_text.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.support.data import SHORT_SCRIPT, make_video
from tests.support.helpers import frame_at, narrate


def test_soft_subtitles_leave_shot_text_out_unless_asked(tmp_path: Path) -> None:
    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    soft = narrate("render", script, "--out", tmp_path / "a", "--engine", "espeak")
    assert soft.returncode == 0, soft.stderr
    assert "测试短片" not in (tmp_path / "a" / "subtitles.srt").read_text(encoding="utf-8")
    asked = narrate(
        "render", script, "--out", tmp_path / "b", "--engine", "espeak", "--screen-text"
    )
    assert asked.returncode == 0, asked.stderr
    assert "{\\an5}测试短片" in (tmp_path / "b" / "subtitles.srt").read_text(encoding="utf-8")
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["screen_text"] is True
    assert {c["layer"] for c in manifest["cues"]} == {0, 1, 2, 3}


def test_burned_in_title_card_caption_and_qualifiers_apart(tmp_path: Path) -> None:
    """Burn-in shows shot text by default: at 2 s the title card mid-frame over the
    narration; at 7 s the red qualifier at the top, the risk card's caption under it and the
    narration at the bottom, in disjoint bands of rows."""
    video = make_video(tmp_path / "v.mp4", 10, fps=10, audio=False)  # two still moments read
    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    out = tmp_path / "out"
    proc = narrate(
        "render",
        script,
        "--out",
        out,
        "--engine",
        "espeak",
        "--video",
        video,
        "--burn-in",
        "--style",
        "vertical-safe",
    )
    assert proc.returncode == 0, proc.stderr

    def rows(t: float) -> tuple[np.ndarray, np.ndarray]:
        f = frame_at(out / "video.mp4", t, (1080, 1920))
        white = (f[..., 0] > 220) & (f[..., 1] > 220) & (f[..., 2] > 220)
        white[150:330, :] = False  # the test video's moving box
        red = (f[..., 0] > 200) & (f[..., 1] < 110) & (f[..., 2] < 110)
        return np.unique(np.nonzero(white)[0]), np.unique(np.nonzero(red)[0])

    white, _ = rows(2)
    title = white[(white > 700) & (white < 1220)]
    assert len(title) > 40, "no title card mid-frame"
    assert len(white[white > 1220]) > 20  # the narration, lower down
    white, red = rows(7)
    assert len(red) > 20 and red.max() < 400
    caption = white[white < 1000]
    assert len(caption) > 20 and caption.min() > red.max()  # under the qualifiers
    narration = white[white >= 1000]
    assert len(narration) > 20 and narration.max() < 1920 * 0.75

"""The short-video looks burned in and read back (issue 37): the GAGAR example with three
keywords marked ``**…**`` and a ``钩子:`` line, rendered with espeak onto a 1080x1920 video
with ``--burn-in --captions box``; frames opened with ffmpeg and read by OCR
(devtools/ocr.py). Every narration cue and the hook read back (CER at most 2 %, no
asterisk); mid-word, the box colour is under the word being spoken and reads as it, and
after the next word's onset it has moved on; each emphasised keyword is drawn in the
emphasis colour, and those pixels read as the keyword."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from devtools.ocr import band, cer, frame, manifest_cues, near, only, read
from service.domain.style import Style, StyleSpec, resolve
from service.domain.subtitles import HOOK, NARRATION, Canvas, Cue
from service.domain.subtitles.writers import placements
from tests.support.data import GAGAR_EXAMPLE, make_video
from tests.support.helpers import narrate

KEYWORDS = ("策略梯度", "铁板", "三件套")
HOOK_TEXT = "别把测试通过当铁板"
SIZE = (1080, 1920)


@dataclass
class Burned:
    video: Path
    ass: str
    cues: list[Cue]
    style: Style


def looks_script() -> str:
    """The GAGAR example with its keywords marked and a hook line before the segments."""
    text = GAGAR_EXAMPLE.read_text(encoding="utf-8")
    for word in KEYWORDS:
        at = text.index(word, text.index("[段"))
        text = text[:at] + f"**{word}**" + text[at + len(word) :]
    return text.replace("[段 1 ·", f"钩子: {HOOK_TEXT}\n\n[段 1 ·", 1)


@pytest.fixture(scope="module")
def burned(tmp_path_factory: pytest.TempPathFactory) -> Burned:
    tmp = tmp_path_factory.mktemp("looks")
    script = tmp / "gagar.md"
    script.write_text(looks_script(), encoding="utf-8")
    video = make_video(tmp / "v.mp4", 92, size="{}x{}".format(*SIZE), audio=False)
    out = tmp / "out"
    proc = narrate(
        "render", script, "--out", out, "--engine", "espeak", "--video", video,
        "--burn-in", "--captions", "box", "--no-check-speech", "--on-overflow", "extend",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ass = (out / "subtitles.ass").read_text(encoding="utf-8")
    style = resolve(None, StyleSpec(captions="box"))
    return Burned(out / "video.mp4", ass, manifest_cues(out), style)


def _band(burned: Burned, cue: Cue) -> tuple[int, int]:
    canvas = Canvas(*SIZE, style=burned.style)
    return band(canvas, placements(canvas, burned.cues)[cue.layer], len(cue.lines))


def test_every_cue_and_the_hook_read_back(burned: Burned) -> None:
    got = []
    for cue in (c for c in burned.cues if c.layer in (NARRATION, HOOK)):
        top, bottom = _band(burned, cue)
        picture = frame(burned.video, (cue.start_ms + cue.end_ms) / 2000, *SIZE)
        text = read(picture[top:bottom])
        got.append((cue.text, text, cer(cue.text, text)))
    assert any(c.layer == HOOK and c.text == HOOK_TEXT for c in burned.cues)
    assert all(rate <= 0.02 for _, _, rate in got), [g for g in got if g[2] > 0.02]
    assert not any("*" in c.text for c in burned.cues) and "*" not in burned.ass


BOXED = re.compile(r"\\t\((\d+),\1,\\3a&H00&\)\\t\((\d+),\2,\\3a&HFF&\)\}([^{]+)\{")


def boxed_words(ass: str) -> list[tuple[str, int, int]]:
    """Each word of the box layer: its text, and when its box shows (ms, from the file)."""
    out = []
    for line in ass.splitlines():
        if not line.startswith("Dialogue: -1,"):
            continue
        start = line.split(",")[1]
        h, m, s = start.split(":")
        t0 = round((int(h) * 3600 + int(m) * 60 + float(s)) * 1000)
        out += [(w, t0 + int(a), t0 + int(b)) for a, b, w in BOXED.findall(line)]
    return out


def test_the_box_is_under_the_word_being_spoken_until_the_next_ones_onset(burned: Burned) -> None:
    colour = burned.style.narration.box_color
    words = [w for w in boxed_words(burned.ass) if len(w[0]) >= 2 and w[2] - w[1] >= 133]
    assert len(words) >= 8
    cue_of = {
        w: next(c for c in burned.cues if c.layer == NARRATION and c.start_ms <= w[1] < c.end_ms)
        for w in words
    }
    for word, on, off in words[:: len(words) // 5][:5]:  # five, spread over the render
        top, bottom = _band(burned, cue_of[(word, on, off)])
        picture = frame(burned.video, (on + off) / 2000, *SIZE)[top:bottom]
        boxed = near(picture, colour, 40)
        assert boxed.sum() > 400, f"{word}: no box"
        rows, cols = np.flatnonzero(boxed.any(axis=1)), np.flatnonzero(boxed.any(axis=0))
        under = picture[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
        assert cer(word, read(under)) == 0, word  # the box holds the word, and only it
        later = frame(burned.video, (off + 40) / 1000, *SIZE)[top:bottom]
        moved = near(later, colour, 40)
        assert not moved[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].all(), f"{word}: stayed"


def test_the_emphasised_keywords_are_drawn_in_the_emphasis_colour(burned: Burned) -> None:
    colour = burned.style.narration.emphasis_color
    for word in KEYWORDS:
        cue = next(
            c for c in burned.cues if c.layer == NARRATION and word in c.text.replace("\n", "")
        )
        top, bottom = _band(burned, cue)
        picture = frame(burned.video, (cue.start_ms + cue.end_ms) / 2000, *SIZE)[top:bottom]
        lit = near(picture, colour, 50)
        assert lit.sum() > 200, f"{word}: not in the emphasis colour"
        assert cer(word, read(only(picture, lit))) == 0, (word, read(only(picture, lit)))

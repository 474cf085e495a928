"""Burned-in text read back by OCR (devtools/ocr.py, rapidocr's bundled PP-OCRv4 models):
one burn-in render at `vertical-safe-highlight`, each cue's frame at its midpoint, the
band of rows its layer draws in, read and compared with the cue's text (character error
rate at most 2 %), for narration, qualifiers and screen text, in Simplified and (a second
render at `vertical-safe`) in the Traditional track burned in; and, mid-word, the pixels
drawn in the highlight colour read as that word and nothing else."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools.ocr import band, cer, frame, highlights, manifest_cues, near, only, read
from service.adapters.files.styles import styles_file
from service.adapters.text.hant import OpenccConverter
from service.config import get_settings
from service.domain.style import Style, StyleSpec, resolve
from service.domain.subtitles import NARRATION, OVERLAY, SCREEN, TITLE, Canvas, Cue
from service.domain.subtitles.writers import placements
from tests.support.data import SHORT_SCRIPT, make_video
from tests.support.helpers import narrate

PRESET = "vertical-safe-highlight"


@dataclass
class Burned:
    video: Path
    size: tuple[int, int]
    ass: str
    cues: list[Cue]
    style: Style


def _burn(
    tmp: Path,
    preset: str,
    *flags: str,
    size: tuple[int, int] = (1080, 1920),
    fps: int = 30,
    convert: Callable[[str], str] = str,
) -> Burned:
    """One burn-in render of the short script at ``preset`` onto a ``size`` video; its cues
    as the manifest has them, each line through ``convert`` (the Traditional track converts
    line by line)."""
    script = tmp / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    video = make_video(tmp / "v.mp4", 10, size="{}x{}".format(*size), fps=fps, audio=False)
    out = tmp / "out"
    proc = narrate(
        "render", script, "--out", out, "--engine", "espeak", "--video", video,
        "--burn-in", "--style", preset, *flags,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cues = manifest_cues(out, convert)
    data = json.loads(styles_file(get_settings()).read_text(encoding="utf-8"))
    style = resolve(data, StyleSpec(preset=preset))
    ass = (out / "subtitles.ass").read_text(encoding="utf-8")
    return Burned(out / "video.mp4", size, ass, cues, style)


@pytest.fixture(scope="module")
def burned(tmp_path_factory: pytest.TempPathFactory) -> Burned:
    return _burn(tmp_path_factory.mktemp("ocr"), PRESET)


@pytest.fixture(scope="module")
def burned_hant(tmp_path_factory: pytest.TempPathFactory) -> Burned:
    """The Traditional (Taiwan) track burned in at ``vertical-safe``: a cue's midpoint is
    all it reads, so 10 frames a second are enough (the highlight needs 30: words of 133 ms),
    and a half-size frame (the styles scale with it) is what it reads."""
    converter = OpenccConverter()
    return _burn(
        tmp_path_factory.mktemp("ocr-hant"), "vertical-safe",
        "--traditional", "tw", "--burn-in-script", "hant",
        size=(540, 960), fps=10, convert=lambda line: converter.convert(line, "tw"),
    )  # fmt: skip


def _read_back(burned: Burned, layers: set[int]) -> list[tuple[str, str, float]]:
    canvas = Canvas(*burned.size, style=burned.style)
    places = placements(canvas, burned.cues)
    got = []
    for cue in (c for c in burned.cues if c.layer in layers):
        picture = frame(burned.video, (cue.start_ms + cue.end_ms) / 2000, *burned.size)
        top, bottom = band(canvas, places[cue.layer], len(cue.lines))
        text = read(picture[top:bottom])
        got.append((cue.text, text, cer(cue.text, text)))
    return got


LAYERS = pytest.mark.parametrize(
    "layers", [{NARRATION}, {OVERLAY}, {SCREEN, TITLE}], ids=["narration", "qualifiers", "screen"]
)


@LAYERS
def test_every_cue_reads_back(burned: Burned, layers: set[int]) -> None:
    got = _read_back(burned, layers)
    assert got, "no cue of the layer"
    assert all(rate <= 0.02 for _, _, rate in got), got


@LAYERS
def test_every_traditional_cue_reads_back(burned_hant: Burned, layers: set[int]) -> None:
    """The burned-in Traditional text is OpenCC's conversion of each cue (測試, 軌跡)."""
    got = _read_back(burned_hant, layers)
    assert got, "no cue of the layer"
    assert all(rate <= 0.02 for _, _, rate in got), got


def test_the_word_being_spoken_is_drawn_in_the_highlight_colour(burned: Burned) -> None:
    """Mid-word, the highlight colour covers that word and nothing else: what it draws reads
    as the word; a frame before its onset, it does not. Words of two characters and more,
    spoken for at least 4 frames."""
    canvas = Canvas(*burned.size, style=burned.style)
    place = placements(canvas, burned.cues)[NARRATION]
    colour = burned.style.narration.highlight_color
    words = [w for w in highlights(burned.ass, colour) if len(w[0]) >= 2 and w[2] - w[1] >= 133]
    assert len(words) >= 8
    top, bottom = band(canvas, place, 2)
    for word, on, off in words[:: len(words) // 4][:4]:  # four, spread over the render
        picture = frame(burned.video, (on + off) / 2000, *burned.size)
        lit = near(picture[top:bottom], colour)
        assert lit.sum() > 50, f"{word}: no highlight"
        assert cer(word, read(only(picture[top:bottom], lit))) == 0, word
        if on - 40 > max(c.start_ms for c in burned.cues if c.start_ms <= on):
            early = frame(burned.video, (on - 40) / 1000, *burned.size)[
                top:bottom
            ]  # a frame before
            assert cer(word, read(only(early, near(early, colour)))) > 0, f"{word}: early"

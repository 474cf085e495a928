"""The new presets' stills, drawn by libass as GET /v1/styles/{name}/preview.png draws them
(devtools/stills.py, which writes docs/screenshots/style-*.png): each shows its look, the
box colour under the spoken word (douyin-box) or the highlight colour on it (shorts-pop),
the emphasis colour on the keyword, and the box sits on the word's rows, not above them."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from devtools.ocr import cer, near, only, read
from service.adapters.ffmpeg.stills import FfmpegStills
from service.adapters.files.styles import styles_file
from service.config import get_settings
from service.domain.preview import EMPHASISED, SPOKEN, sample_cues
from service.domain.style import StyleSpec, resolve
from service.domain.subtitles.writers import Canvas, write_ass


def _still(name: str, language: str) -> tuple[np.ndarray, object]:
    settings = get_settings()
    data = json.loads(styles_file(settings).read_text(encoding="utf-8"))
    style = resolve(data, StyleSpec(preset=name), settings.font_name)
    ass = write_ass(sample_cues(language), Canvas(1080, 1920, settings.font_name, language, style))
    png = FfmpegStills(settings).draw(ass, (1080, 1920), 1080, None, 0.5)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), style


@pytest.mark.parametrize(("name", "language"), [("douyin-box", "zh"), ("shorts-pop", "en")])
def test_a_presets_still_shows_its_look(name: str, language: str) -> None:
    img, style = _still(name, language)
    look = style.narration  # type: ignore[attr-defined]
    lower = img[1000:]  # the narration's half of the frame
    keyword = near(lower, look.emphasis_color, 40)
    assert cer(EMPHASISED[language], read(only(lower, keyword))) == 0
    if name == "douyin-box":
        box = near(lower, look.box_color, 40)
        rows = np.flatnonzero(box.any(axis=1))
        cols = np.flatnonzero(box.any(axis=0))
        under = lower[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
        assert cer(SPOKEN[language], read(under)) == 0  # the whole word is on its box
        # The word's white ink, around the box's rows: inside them (libass once drew the box
        # higher than a shadowed line's glyphs).
        near_rows = slice(max(0, rows[0] - 10), rows[-1] + 10)
        white = near(lower[near_rows, cols[0] : cols[-1] + 1], "#FFFFFF", 40)
        ink = np.flatnonzero(white.any(axis=1)) + near_rows.start
        assert rows[0] <= ink[0] and ink[-1] <= rows[-1], (rows[[0, -1]], ink[[0, -1]])
    else:
        lit = near(lower, look.highlight_color, 40)
        assert cer(SPOKEN[language], read(only(lower, lit))) == 0

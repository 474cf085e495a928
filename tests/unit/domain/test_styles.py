"""Subtitle styles: presets and per-job overrides reach the ASS styles, the VTT cue settings
and the burned-in picture; SRT stays plain."""

from __future__ import annotations

import json
from typing import Any

import pysubs2
import pytest

from service.adapters.files.styles import load_styles
from service.config import get_settings
from service.domain.errors import ScriptError
from service.domain.spec import spec_from_data
from service.domain.style import DEFAULT_STYLE, StyleSpec, resolve
from service.domain.subtitles import WRITERS, Canvas, Cue, Layout, narration_cues, overlay_cues
from service.domain.subtitles.cues import TimedPhrase

PRESETS = json.loads((get_settings().voices_file.parent / "styles.json").read_text("utf-8"))


def cues() -> list[Cue]:
    spec = spec_from_data({"segments": [{"text": "x", "seconds": 1}]})
    lay = Layout.for_spec(spec)
    text = "通过测试不等于实现质量好"
    out = narration_cues(text, [TimedPhrase(0, len(text), 0, 2000)], lay)
    return out + overlay_cues([("abstract 未给出具体百分点", 0, 2000)], lay)


def test_presets_are_listed_with_the_builtin_default_first() -> None:
    names = list(load_styles(get_settings()))
    assert names[0] == "default" and "vertical-safe" in names


def test_every_override_field_is_in_the_ass_style_line() -> None:
    style = resolve(
        PRESETS,
        StyleSpec.model_validate(
            {
                "preset": "vertical-safe",
                "narration": {
                    "font": "Noto Serif CJK SC",
                    "size": 0.03,
                    "color": "#FFEE00",
                    "outline_color": "#102030",
                    "outline": 0.002,
                    "shadow_color": "#00000040",
                    "shadow": 0.001,
                    "bold": True,
                    "margin": 0.3,
                    "margin_left": 0.1,
                    "margin_right": 0.2,
                },
            }
        ),
    )
    ass = WRITERS["ass"](cues(), Canvas(1080, 1920, style=style))
    line = next(x for x in ass.splitlines() if x.startswith("Style: Narration"))
    # name, font, size 58, primary (BGR) 00EEFF, secondary, outline 302010, back alpha BF,
    # bold -1, ..., outline 3.8, shadow 1.9, bottom centre, L 108, R 216, V 576
    assert line == (
        "Style: Narration,Noto Serif CJK SC,58,&H0000EEFF,&H000000FF,&H00302010,&HBF000000,"
        "-1,0,0,0,100,100,0,0,1,3.8,1.9,2,108,216,576,1"
    )
    top = pysubs2.SSAFile.from_string(ass).styles["Overlay"]
    assert (top.primarycolor.r, top.primarycolor.g, top.primarycolor.b) == (255, 59, 48)  # red
    assert top.alignment == pysubs2.Alignment.TOP_CENTER and top.bold


def test_vertical_safe_in_vtt_cue_settings_and_srt_stays_plain() -> None:
    safe = resolve(PRESETS, StyleSpec(preset="vertical-safe"))
    vtt = WRITERS["vtt"](cues(), Canvas(style=safe))
    assert " line:75%,end position:45.5% size:79% align:center" in vtt  # narration
    assert " line:9% position:45.5% size:79% align:center" in vtt  # qualifiers
    assert "::cue(.qualifiers) { color: #FF3B30FF;" in vtt and "font-weight: bold" in vtt
    plain = WRITERS["srt"](cues(), Canvas())
    assert WRITERS["srt"](cues(), Canvas(style=safe)) == plain
    assert "{\\an8}abstract" in plain and "color" not in plain


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            {"preset": "vertical-saf"},
            "unknown style preset 'vertical-saf'; did you mean vertical-safe",
        ),
        ({"narration": {"color": "red"}}, "style narration color: must be a colour"),
        ({"narration": {"size": 0.5}}, "style narration size"),
        ({"qualifiers": {"font": "A,B"}}, "style qualifiers font: must be a font family"),
        ({"narration": {"margin_left": 0.4, "margin_right": 0.3}}, "leave under 40 %"),
        ({"narration": {"italic": True}}, "style narration italic"),
    ],
)
def test_bad_styles_are_refused_naming_the_field(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(ScriptError) as err:
        spec = spec_from_data({"segments": [{"text": "好", "seconds": 2}], "style": data})
        resolve(PRESETS, spec.style)
    assert needle in str(err.value)


def test_a_preset_name_is_a_style() -> None:
    spec = spec_from_data({"segments": [{"text": "好", "seconds": 2}], "style": "landscape"})
    assert spec.style == StyleSpec(preset="landscape")
    assert resolve(PRESETS, None) == DEFAULT_STYLE

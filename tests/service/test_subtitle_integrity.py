"""Subtitle integrity as ffmpeg reads our SRT: overlay text cannot inject cues, markup is
shown literally (not stripped, not interpreted), every free-text field refuses NUL and bidi
overrides like segment text does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pysubs2
import pytest

from service.domain.errors import ScriptError
from service.domain.spec import spec_from_data
from service.domain.subtitles import Canvas, Layout, overlay_cues, settle
from service.domain.subtitles.writers import WRITERS

# ffmpeg reads "%d:%d:%d,%d --> ..." with optional spaces: short enough to stay on one line.
INJECTIONS = [
    "第一行\n\n2\n0:0:5,0-->0:0:9,0\n注入的字幕",
    "第一行\n2\n0:0:5,0 --> 0:0:9,0\n注入",
    "顶部\n0:0:5,0-->0:0:9,0\n注入",
    "\n\n\n4\n0:0:5,0-->0:0:9,0\n注入",
]


def ffmpeg_events(srt_text: str, tmp: Path) -> list[pysubs2.SSAEvent]:
    """The events ffmpeg's SRT demuxer and decoder make of the file (as ASS)."""
    src, out = tmp / "in.srt", tmp / "out.ass"
    src.write_text(srt_text, encoding="utf-8")
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-i", str(src), str(out)], check=True, timeout=30
    )
    return list(pysubs2.load(str(out)))


def layout() -> Layout:
    return Layout.for_spec(spec_from_data({"segments": [{"text": "x", "seconds": 1}]}))


@pytest.mark.parametrize("text", INJECTIONS)
def test_newline_in_overlay_text_makes_no_extra_cue(text: str, tmp_path: Path) -> None:
    spec = spec_from_data(
        {
            "segments": [{"text": "正文", "seconds": 10}],
            "overlays": [{"text": text, "start": 0, "end": 2}],
        }
    )
    lay = layout()
    cues = settle(
        overlay_cues(
            [(o.text, int(o.start * 1000), int(o.end * 1000)) for o in spec.overlays], lay
        ),
        lay,
    )
    events = ffmpeg_events(WRITERS["srt"](cues, Canvas()), tmp_path)
    assert len(events) == len(cues) == 1
    assert events[0].end <= 2000  # the injected timing is not a cue's timing
    assert "注入" in events[0].plaintext  # the text is still there, as text


def test_srt_markup_is_shown_literally_by_ffmpeg(tmp_path: Path) -> None:
    texts = ["<i>斜体</i>", "<font color=red>红</font>", "{\\an1}底", "a\\Nb", "a --> b", "x > y"]
    lay = layout()
    cues = overlay_cues([(t, i * 1000, i * 1000 + 900) for i, t in enumerate(texts)], lay)
    events = ffmpeg_events(WRITERS["srt"](cues, Canvas()), tmp_path)
    shown = [e.plaintext.replace("\u2060", "").replace("\n", "") for e in events]
    # Nothing was stripped: every word and markup character is visible, as a look-alike.
    assert shown == [
        "‹i›斜体‹/i›",
        "‹font color=red›红‹/font›",
        "｛\\an1｝底",
        "a\\Nb",
        "a --› b",
        "x > y",
    ]
    # Nothing was interpreted: no italics, colour or position reached the renderer (only the
    # overlay's own {\an8}), and \N stayed two characters rather than a line break.
    for event in events:
        assert event.text.startswith("{\\an8}") and event.text.count("{") == 1, event.text
    assert events[3].text == "{\\an8}a\\\u2060Nb"


@pytest.mark.parametrize(
    "data",
    [
        {"title": "标题\x00"},
        {"title": "\u202eabc"},
        {"shots": [{"index": 1, "start": 0, "end": 1, "name": "镜头\u202e"}]},
        {"shots": [{"index": 1, "start": 0, "end": 1, "screen_text": "a\x00b"}]},
        {"shots": [{"index": 1, "start": 0, "end": 1, "elements": "\u2066x"}]},
        {"shots": [{"index": 1, "start": 0, "end": 1, "motion": "\x1b[31m"}]},
        {"title": "a\ud800"},
    ],
)
def test_title_and_shot_fields_refuse_control_and_bidi(data: dict[str, object]) -> None:
    with pytest.raises(ScriptError, match="control character") as exc:
        spec_from_data({"segments": [{"text": "正文", "seconds": 3}], **data})
    assert str(exc.value).split(":")[0] in ("title", "shot 1 name", "shot 1 screen_text",
                                           "shot 1 elements", "shot 1 motion")  # fmt: skip

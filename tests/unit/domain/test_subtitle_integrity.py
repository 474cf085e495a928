"""Subtitle integrity as ffmpeg reads our SRT: overlay text cannot inject cues, markup is
shown literally (not stripped, not interpreted), every free-text field refuses NUL and bidi
overrides like segment text does."""

from __future__ import annotations

import html
import subprocess
from pathlib import Path

import pysubs2
import pytest
import srt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.errors import ScriptError
from service.domain.spec import JobSpec, spec_from_data
from service.domain.subtitles import Canvas, Cue, Layout, overlay_cues, settle
from service.domain.subtitles.writers import WRITERS
from service.domain.timeline import place_overlays, place_segments, slots_ms

# ffmpeg reads "%d:%d:%d,%d --> ..." with optional spaces: short enough to stay on one line.
INJECTIONS = [
    "第一行\n\n2\n0:0:5,0-->0:0:9,0\n注入的字幕",
    "第一行\n2\n0:0:5,0 --> 0:0:9,0\n注入",
    "顶部\n0:0:5,0-->0:0:9,0\n注入",
    "\n\n\n4\n0:0:5,0-->0:0:9,0\n注入",
]


def ffmpeg_events(srt_text: str, tmp: Path, fmt: str = "srt") -> list[pysubs2.SSAEvent]:
    """The events ffmpeg's demuxer and decoder for ``fmt`` make of the file (as ASS)."""
    src, out = tmp / f"in.{fmt}", tmp / "out.ass"
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


@pytest.mark.parametrize("brk", ["\n", "\r", "\x85", "\u2028", "\u2029", "\x9b"])
def test_a_title_is_one_line_refused_with_a_break_or_c1_control_naming_the_field(
    brk: str,
) -> None:
    """A title goes raw into the EDL's ``TITLE:`` line (and other one-line headers): a
    line break or a C1 control in it is refused at the door, naming the field."""
    with pytest.raises(ScriptError) as exc:
        spec_from_data({"segments": [{"text": "正文", "seconds": 3}], "title": f"a{brk}b"})
    assert str(exc.value).startswith("title:"), str(exc.value)
    assert "one line" in str(exc.value) or "control character" in str(exc.value)


# Timing look-alikes in a qualifier: the issue's own (index, timing line, text), with the
# arrows srt and ffmpeg read (and look-alikes), full-width and spaced timestamps, a bare
# number last (pysubs2 drops it as the next cue's index), every kind of line break.
LOOKALIKES = [
    "2\n00:00:00,000 --> 00:00:09,000\nINJ",
    "前\n3\n00:00:01,000 --› 00:00:09,000\n注入",
    "前\r\n4\r\n0:0:1,0 - > 0:0:9,0\r\n注入",
    "前\u20285\u20280:0:1.0 -- > 0:0:9.0\u2029注入",
    "前\x856\x8500：00：01，000 –> 00：00：09，000",
    "前\n0: 0: 1,0-->0: 0: 9,0\n7",
]


def _spec(qualifiers: list[str], display: str = "accumulate") -> JobSpec:
    return spec_from_data(
        {
            "segments": [{"text": "正文一句。", "seconds": 4}, {"text": "又一句。", "seconds": 4}],
            "qualifiers": qualifiers,
            "qualifier_display": display,
        }
    )


def _cues(spec: JobSpec) -> list[Cue]:
    lay = Layout.for_spec(spec)
    placed = place_overlays(spec, place_segments(spec, slots_ms(spec)))
    return settle(overlay_cues([(o.text, o.start_ms, o.end_ms) for o in placed], lay), lay)


def _shown(text: str) -> str:
    """What a reader shows, as the cue's text: joiners removed, lines joined by LF."""
    return text.replace("\u2060", "").replace("\\N", "\n").strip()


def _expected(cue: Cue) -> str:
    """A cue's own text; an arrow's '>' may be shown as '›' (see writers._no_timing)."""
    return "\n".join(cue.lines)


def _same(shown: list[str], cues: list[Cue]) -> None:
    def norm(s: str) -> str:
        return s.replace("›", ">")

    assert [norm(s) for s in shown] == [norm(_expected(c)) for c in cues]


def test_a_qualifier_is_one_line_at_the_door() -> None:
    spec = _spec(["a\nb", "c\r\n\r\n d", "e\u2028f\u2029g", "h\x85i\rj"], "one-by-one")
    assert spec.qualifiers == ["a b", "c d", "e f g", "h i j"]
    overlay = spec_from_data(
        {
            "segments": [{"text": "x", "seconds": 2}],
            "overlays": [{"text": "一\r\n二\u2028三\x85四", "start": 0, "end": 1}],
        }
    ).overlays[0]
    assert overlay.text == "一\n二\n三\n四"  # an overlay's lines are its items


def test_timing_lookalikes_make_no_cue_for_srt_pysubs2_or_ffmpeg(tmp_path: Path) -> None:
    spec = _spec(LOOKALIKES)
    assert all("\n" not in q for q in spec.qualifiers)
    cues = _cues(spec)
    assert len(cues) == len(LOOKALIKES)  # accumulating: one cue a qualifier
    files = {fmt: WRITERS[fmt](cues, Canvas()) for fmt in ("srt", "vtt", "ass")}
    subs = list(srt.parse(files["srt"]))  # strict: raises on anything it cannot place
    _same([_shown(s.content.removeprefix("{\\an8}")) for s in subs], cues)
    assert [(s.start.total_seconds() * 1000, s.end.total_seconds() * 1000) for s in subs] == [
        (c.start_ms, c.end_ms) for c in cues
    ]
    for fmt, text in files.items():
        events = pysubs2.SSAFile.from_string(text, format_=fmt).events
        _same([_shown(html.unescape(e.plaintext)) for e in events], cues)
        if fmt == "vtt":
            continue  # ffmpeg 5.1's WebVTT demuxer reads nothing past a STYLE block
        ffmpeg = ffmpeg_events(text, tmp_path, fmt)
        _same([_shown(e.plaintext) for e in ffmpeg], cues)
        for e, c in zip(ffmpeg, cues, strict=True):  # ASS keeps centiseconds
            assert abs(e.start - c.start_ms) < 10 and abs(e.end - c.end_ms) < 10


_TEXT = st.text(
    st.sampled_from(list("0123456789:,.-> \n\r\u2028\u2029\x85–—›：，。．字aZ")), max_size=60
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TEXT.filter(lambda t: t.strip()), min_size=1, max_size=4), st.booleans())
def test_any_qualifier_text_is_one_cue_a_qualifier_for_srt_and_pysubs2(
    qualifiers: list[str], accumulate: bool
) -> None:
    try:
        spec = _spec(qualifiers, "accumulate" if accumulate else "one-by-one")
    except ScriptError:  # all blank once folded: refused at the door, as it should be
        return
    cues = _cues(spec)
    files = {fmt: WRITERS[fmt](cues, Canvas()) for fmt in ("srt", "vtt", "ass")}
    subs = list(srt.parse(files["srt"]))
    _same([_shown(s.content.removeprefix("{\\an8}")) for s in subs], cues)
    for fmt, text in files.items():
        events = pysubs2.SSAFile.from_string(text, format_=fmt).events
        _same([_shown(html.unescape(e.plaintext)) for e in events], cues)

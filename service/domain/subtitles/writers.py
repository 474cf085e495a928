"""SRT, VTT and ASS writers behind one registry, all reading the same cue model.

Cue text is shown literally: markup a player would interpret is neutralised per format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import srt

from service.domain.emphasis import alnum_spots
from service.domain.style import Look, rgba
from service.domain.subtitles.ass import ASS_STYLES as ASS_STYLES
from service.domain.subtitles.ass import write_ass as write_ass
from service.domain.subtitles.canvas import LINE_HEIGHT as LINE_HEIGHT
from service.domain.subtitles.canvas import TITLE_SCALE as TITLE_SCALE
from service.domain.subtitles.canvas import Canvas as Canvas
from service.domain.subtitles.canvas import Place as Place
from service.domain.subtitles.canvas import _in_order, _lines, _no_timing
from service.domain.subtitles.canvas import placements as placements
from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN, TITLE, Cue
from service.domain.subtitles.karaoke import timestamped_lines

# What SRT readers interpret, and the look-alike shown instead: '<' opens an HTML-like tag
# (<i>, <font>), '{' an ASS override ({\an8}), '\N' '\n' '\h' are ASS commands to
# ffmpeg and libass, and '-->' in a line makes ffmpeg's demuxer start a new cue. SRT has no
# escape that every player honours (ffmpeg does not decode &lt;), so markup is shown
# literally with look-alike characters rather than stripped. A '>' that closes no tag stays.
_SRT_TAG = re.compile(r"<([^<>]*)>")
_SRT_LITERAL = str.maketrans({"<": "‹", "{": "｛", "}": "｝"})


def _srt_literal(line: str) -> str:
    line = _SRT_TAG.sub(r"‹\1›", line).translate(_SRT_LITERAL)
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


def _srt_body(lines: tuple[str, ...]) -> str:
    """The cue's lines, shown literally. A newline inside a line (overlay text may hold
    one) becomes a line break; a blank line, which ends an SRT cue, is dropped, so no text
    can start a cue of its own."""
    kept = [_no_timing(part.strip()) for part in _lines(lines)]
    return _srt_literal("\n".join(kept))  # a tag may span a line break


_SRT_POSITION = {OVERLAY: "{\\an8}", SCREEN: "{\\an5}", TITLE: "{\\an5}", HOOK: "{\\an5}"}


def write_srt(cues: list[Cue], canvas: Canvas) -> str:
    subs = []
    for i, c in enumerate(cues, 1):
        body = _srt_body(_in_order(c, canvas, c.lines, c.translation))
        subs.append(
            srt.Subtitle(
                i,
                timedelta(milliseconds=c.start_ms),
                timedelta(milliseconds=c.end_ms),
                _SRT_POSITION.get(c.layer, "") + body,
            )
        )
    text: str = srt.compose(subs, reindex=False)  # srt has no type hints
    return text


def _vtt_time(t: int) -> str:
    h, rem = divmod(t, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, milli = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{milli:03d}"


def _vtt_escape(line: str) -> str:
    return (
        line.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("-->", "--&gt;")
    )


def _pct(x: float) -> str:
    return f"{x * 100:.4g}%"


def _vtt_settings(place: Place) -> str:
    """Where VTT can put a cue: its line (percent of the height: the top edge for top
    layers, the bottom edge, ``,end``, for narration, the centre for title cards), and the
    horizontal box the margins leave (position is its centre)."""
    look = place.look
    width = 1 - look.margin_left - look.margin_right
    centre = look.margin_left + width / 2
    line = {
        "top": _pct(place.margin),
        "bottom": _pct(1 - place.margin) + ",end",
        "middle": "50%,center",
    }[place.anchor]
    return f" line:{line} position:{_pct(centre)} size:{_pct(width)} align:center"


def _css(look: Look) -> str:
    """What ::cue CSS can say of a look: colour, font, weight, outline (as a text shadow)."""
    r, g, b, a = rgba(look.color)
    o = look.outline_color.lstrip("#")[:6]
    shadow = f"0 0 {max(1, round(look.outline * 1080))}px #{o}" if look.outline else "none"
    return (
        f'color: #{r:02X}{g:02X}{b:02X}{a:02X}; font-family: "{look.font}", sans-serif; '
        f"font-weight: {'bold' if look.bold else 'normal'}; text-shadow: {shadow};"
    )


VTT_CLASSES = {
    NARRATION: "narration",
    OVERLAY: "qualifiers",
    SCREEN: "screen",
    TITLE: "title",
    HOOK: "hook",
}
TRANSLATION = "translation"  # a bilingual narration cue's English lines: class and ASS style


# An emphasised keyword's ends, marked in a line before it is escaped (private-use
# characters: neither alphanumeric, so the words' alignment skips them, nor touched by the
# escape) and written as its class's tags after.
_OPEN, _CLOSE = "\ue000", "\ue001"
EMPHASIS = "emphasis"  # the class (and ::cue rule) of authored emphasis


def _emphasised(lines: list[str], c: Cue) -> list[str]:
    """``lines`` with their emphasised keywords between the marks."""
    lines = [line.replace(_OPEN, "").replace(_CLOSE, "") for line in lines]
    out = []
    for line, spots in zip(lines, alnum_spots(lines, c.emphasis), strict=True):
        for a, b in sorted(spots, reverse=True):
            line = line[:a] + _OPEN + line[a:b] + _CLOSE + line[b:]
        out.append(line)
    return out


def _vtt_text(line: str) -> str:
    return _vtt_escape(line).replace(_OPEN, f"<c.{EMPHASIS}>").replace(_CLOSE, "</c>")


def _vtt_lines(c: Cue, canvas: Canvas) -> list[str]:
    cls = VTT_CLASSES[c.layer]
    theirs = TRANSLATION if c.layer == NARRATION else cls
    lines = [_no_timing(line) for line in _lines(c.lines)]
    lines = _emphasised(lines, c) if c.emphasis else lines
    timed = None
    if c.words and canvas.style.captions != "static":  # the words' onsets
        timed = timestamped_lines(lines, c.words, (c.start_ms, c.end_ms), _vtt_text, _vtt_time)
    own = [f"<c.{cls}>{line}</c>" for line in timed or map(_vtt_text, lines)]
    translated = [
        f"<c.{theirs}>{_vtt_escape(_no_timing(line))}</c>" for line in _lines(c.translation)
    ]
    return list(_in_order(c, canvas, tuple(own), tuple(translated)))


def write_vtt(cues: list[Cue], canvas: Canvas) -> str:
    places = placements(canvas, cues)
    layers = [NARRATION, OVERLAY] + [
        k for k in (SCREEN, TITLE, HOOK) if any(c.layer == k for c in cues)
    ]
    out = ["WEBVTT", "", "STYLE"]
    out += [f"::cue(.{VTT_CLASSES[k]}) {{ {_css(places[k].look)} }}" for k in layers]
    if any(c.translation and c.layer == NARRATION for c in cues):
        out.append(f"::cue(.{TRANSLATION}) {{ {_css(canvas.style.translation_look)} }}")
    if any(c.emphasis for c in cues):
        look = canvas.style.narration
        out.append(
            f"::cue(.{EMPHASIS}) {{ color: {look.emphasis_color}; "
            f"font-size: {look.emphasis_scale * 100:.4g}%; }}"
        )
    out.append("")
    for c in cues:
        out.append(
            f"{_vtt_time(c.start_ms)} --> {_vtt_time(c.end_ms)}{_vtt_settings(places[c.layer])}"
        )
        out += _vtt_lines(c, canvas)
        out.append("")
    return "\n".join(out)


WRITERS: dict[str, Callable[[list[Cue], Canvas], str]] = {
    "srt": write_srt,
    "vtt": write_vtt,
    "ass": write_ass,
}

"""SRT, VTT and ASS writers behind one registry, all reading the same cue model.

Cue text is shown literally: markup a player would interpret is neutralised per format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta

import pysubs2
import srt

from service.domain.style import DEFAULT_STYLE, Look, Style, rgba
from service.domain.subtitles.cues import NARRATION, OVERLAY, SCREEN, TITLE, Cue
from service.domain.subtitles.karaoke import Ink, karaoke_lines, timestamped_lines

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


# What a reader takes for a timing line, in any cue line of any format: a timestamp (three
# or more numbers joined by ':' ',' '.' or the full-width marks the srt package also
# reads, each maybe after blanks and a sign, as ffmpeg's sscanf reads them), an arrow (two
# or more dashes or blanks before a '>', as srt and ffmpeg read it), and a line that is a
# bare number (a cue index: srt ends a cue at an index line over a timestamp line, pysubs2
# drops a last line that is one). Each is kept as it looks, with a WORD JOINER (U+2060,
# invisible) after every joining mark and before the number, so that no reader's pattern
# matches, and an arrow's '>' shown as '›'.
_JOIN = "[,.:，．。：]"
_TIMESTAMP = re.compile(rf"\d+(?:{_JOIN}\s*[-+]?\d+){{2,}}")
_ARROW = re.compile(r"(-[ -]+)>")
_INDEX = re.compile(r"^(\s*)(?=[-+]?\d+(?:[.,]\d*)?\s*$)")


def _no_timing(line: str) -> str:
    line = _TIMESTAMP.sub(lambda m: re.sub(f"({_JOIN})", "\\1\u2060", m.group()), line)
    return _INDEX.sub("\\1\u2060", _ARROW.sub("\\1›", line))


@dataclass(frozen=True, slots=True)
class Canvas:
    """What the ASS styles are laid out for (the video's size when there is one)."""

    width: int = 1080
    height: int = 1920
    font: str = "Noto Sans CJK SC"
    language: str = "zh"
    style: Style = DEFAULT_STYLE


def _srt_body(lines: tuple[str, ...]) -> str:
    """The cue's lines, shown literally. A newline inside a line (overlay text may hold
    one) becomes a line break; a blank line, which ends an SRT cue, is dropped, so no text
    can start a cue of its own."""
    kept = [_no_timing(part.strip()) for part in _lines(lines)]
    return _srt_literal("\n".join(kept))  # a tag may span a line break


def _in_order(
    c: Cue, canvas: Canvas, own: tuple[str, ...], translated: tuple[str, ...]
) -> tuple[str, ...]:
    """A bilingual cue's two line groups as the style stacks them: the translation under
    the Chinese, or above it (``translation_position: above``)."""
    return translated + own if canvas.style.translation_above else own + translated


def _lines(lines: tuple[str, ...]) -> list[str]:
    """A cue's lines as every reader splits them (any line break), none blank: a blank line
    ends a cue in SRT and VTT."""
    return [part for line in lines for part in line.splitlines() if part.strip()]


# SRT says only where: qualifiers at the top, shot text mid-frame (clear of both).
_SRT_POSITION = {OVERLAY: "{\\an8}", SCREEN: "{\\an5}", TITLE: "{\\an5}"}
LINE_HEIGHT = 1.25  # a line's height, in font sizes
TITLE_SCALE = 1.4  # title cards: the screen-text look, larger, mid-frame


@dataclass(frozen=True, slots=True)
class Place:
    """Where one layer goes: its look (size already scaled) and vertical anchor: 'top' or
    'bottom' at ``margin`` (fraction of the height), or 'middle'."""

    look: Look
    anchor: str
    margin: float


def placements(canvas: Canvas, cues: list[Cue]) -> dict[int, Place]:
    """Each layer's place. Shot captions sit under the tallest block the top layer shows
    (so an accumulating risk card pushes them down, never under it); title cards are
    mid-frame; narration at the bottom."""
    st = canvas.style
    q = st.qualifiers
    top_lines = max([len(c.lines) for c in cues if c.layer == OVERLAY], default=0)
    below_top = q.margin + top_lines * q.size * LINE_HEIGHT + (0.01 if top_lines else 0)
    title = replace(st.screen_text, size=st.screen_text.size * TITLE_SCALE)
    return {
        NARRATION: Place(st.narration, "bottom", st.narration.margin),
        OVERLAY: Place(q, "top", q.margin),
        SCREEN: Place(st.screen_text, "top", max(st.screen_text.margin, below_top)),
        TITLE: Place(title, "middle", 0.5),
    }


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


VTT_CLASSES = {NARRATION: "narration", OVERLAY: "qualifiers", SCREEN: "screen", TITLE: "title"}
TRANSLATION = "translation"  # a bilingual narration cue's English lines: class and ASS style


def _vtt_lines(c: Cue, canvas: Canvas) -> list[str]:
    cls = VTT_CLASSES[c.layer]
    theirs = TRANSLATION if c.layer == NARRATION else cls
    lines = [_no_timing(line) for line in _lines(c.lines)]
    timed = None
    if c.words and canvas.style.captions in ("highlight", "reveal"):  # the words' onsets
        timed = timestamped_lines(lines, c.words, (c.start_ms, c.end_ms), _vtt_escape, _vtt_time)
    own = [f"<c.{cls}>{line}</c>" for line in timed or map(_vtt_escape, lines)]
    translated = [
        f"<c.{theirs}>{_vtt_escape(_no_timing(line))}</c>" for line in _lines(c.translation)
    ]
    return list(_in_order(c, canvas, tuple(own), tuple(translated)))


def write_vtt(cues: list[Cue], canvas: Canvas) -> str:
    places = placements(canvas, cues)
    layers = [NARRATION, OVERLAY] + [k for k in (SCREEN, TITLE) if any(c.layer == k for c in cues)]
    out = ["WEBVTT", "", "STYLE"]
    out += [f"::cue(.{VTT_CLASSES[k]}) {{ {_css(places[k].look)} }}" for k in layers]
    if any(c.translation and c.layer == NARRATION for c in cues):
        out.append(f"::cue(.{TRANSLATION}) {{ {_css(canvas.style.translation_look)} }}")
    out.append("")
    for c in cues:
        out.append(
            f"{_vtt_time(c.start_ms)} --> {_vtt_time(c.end_ms)}{_vtt_settings(places[c.layer])}"
        )
        out += _vtt_lines(c, canvas)
        out.append("")
    return "\n".join(out)


def _ass_text(line: str) -> str:
    # "{" opens an override block and "\N" "\n" "\h" are commands in ASS; keep them literal.
    line = line.replace("{", "｛").replace("}", "｝")
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


def _color(color: str) -> pysubs2.Color:
    r, g, b, opacity = rgba(color)
    return pysubs2.Color(r, g, b, 255 - opacity)  # ASS alpha: 0 is opaque


_ALIGN = {
    "top": pysubs2.Alignment.TOP_CENTER,
    "bottom": pysubs2.Alignment.BOTTOM_CENTER,
    "middle": pysubs2.Alignment.MIDDLE_CENTER,
}


def ass_style(canvas: Canvas, place: Place) -> pysubs2.SSAStyle:
    """A layer's look in the frame's pixels (PlayRes is the frame size)."""
    h, w = canvas.height, canvas.width
    look = place.look
    return pysubs2.SSAStyle(
        fontname=look.font,
        fontsize=round(look.size * h),
        primarycolor=_color(look.color),
        outlinecolor=_color(look.outline_color),
        backcolor=_color(look.shadow_color),
        bold=look.bold,
        outline=round(look.outline * h, 1),
        shadow=round(look.shadow * h, 1),
        alignment=_ALIGN[place.anchor],
        marginv=round(place.margin * h) if place.anchor != "middle" else 0,
        marginl=round(look.margin_left * w),
        marginr=round(look.margin_right * w),
    )


ASS_STYLES = {NARRATION: "Narration", OVERLAY: "Overlay", SCREEN: "Screen", TITLE: "Title"}


ASS_TRANSLATION = "Translation"


def _ass_event_text(c: Cue, canvas: Canvas) -> str:
    """The cue's lines; a bilingual narration cue's English in the Translation style
    (``\\r`` switches style inside the event, so both groups stack as one block)."""
    lines = [_ass_text(_no_timing(line)) for line in _lines(c.lines)]
    own = (_word_by_word(c, lines, canvas) if c.words else None) or "\\N".join(lines)
    if not c.translation:
        return own
    english = "\\N".join(_ass_text(_no_timing(line)) for line in _lines(c.translation))
    if c.layer != NARRATION:
        return "\\N".join(_in_order(c, canvas, (own,), (english,)))
    if canvas.style.translation_above:
        return f"{{\\r{ASS_TRANSLATION}}}{english}\\N{{\\r}}{own}"
    return f"{own}\\N{{\\r{ASS_TRANSLATION}}}{english}"


def write_ass(cues: list[Cue], canvas: Canvas) -> str:
    subs = pysubs2.SSAFile()
    subs.info.update({"PlayResX": str(canvas.width), "PlayResY": str(canvas.height)})
    # Overlays (qualifiers): smaller, in warning red, at the top: they never hide narration.
    # Shot text: captions under the top layer, title cards mid-frame (only when shown).
    places = placements(canvas, cues)
    subs.styles.pop("Default", None)
    for layer, name in ASS_STYLES.items():
        if layer in (NARRATION, OVERLAY) or any(c.layer == layer for c in cues):
            subs.styles[name] = ass_style(canvas, places[layer])
    if any(c.translation and c.layer == NARRATION for c in cues):
        look = canvas.style.translation_look
        subs.styles[ASS_TRANSLATION] = ass_style(canvas, Place(look, "bottom", look.margin))
    for c in cues:
        subs.append(
            pysubs2.SSAEvent(
                start=c.start_ms,
                end=c.end_ms,
                text=_ass_event_text(c, canvas),
                style=ASS_STYLES[c.layer],
                layer=c.layer,
            )
        )
    return str(subs.to_string("ass"))


def _word_by_word(cue: Cue, lines: list[str], canvas: Canvas) -> str | None:
    """A narration cue's text with its words switched as spoken (the style's captions)."""
    mode = canvas.style.captions
    if mode not in ("highlight", "reveal"):
        return None
    look = canvas.style.narration
    ink = Ink(look.color, look.highlight_color, look.outline_color, look.shadow_color)
    return karaoke_lines(lines, cue.words, cue.start_ms, mode, ink)


WRITERS: dict[str, Callable[[list[Cue], Canvas], str]] = {
    "srt": write_srt,
    "vtt": write_vtt,
    "ass": write_ass,
}

"""SRT, VTT and ASS writers behind one registry, all reading the same cue model.

Cue text is shown literally: markup a player would interpret is neutralised per format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pysubs2
import srt

from service.domain.subtitles.cues import Cue
from service.domain.subtitles.styles import DEFAULT_STYLE, Look, Style, rgba

# What SRT readers interpret, and the look-alike shown instead: '<' opens an HTML-like tag
# (<i>, <font>), '{' an ASS override ({\an8}), '\N' '\n' '\h' are ASS commands to
# ffmpeg and libass, and '-->' in a line makes ffmpeg's demuxer start a new cue. SRT has no
# escape that every player honours (ffmpeg does not decode &lt;), so markup is shown
# literally with look-alike characters rather than stripped. A '>' that closes no tag stays.
_SRT_TAG = re.compile(r"<([^<>]*)>")
_SRT_LITERAL = str.maketrans({"<": "‹", "{": "｛", "}": "｝"})


def _srt_literal(line: str) -> str:
    line = _SRT_TAG.sub(r"‹\1›", line).translate(_SRT_LITERAL).replace("-->", "--›")
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


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
    kept = [part.strip() for line in lines for part in line.splitlines() if part.strip()]
    return _srt_literal("\n".join(kept))  # a tag may span a line break


def write_srt(cues: list[Cue], canvas: Canvas) -> str:
    subs = []
    for i, c in enumerate(cues, 1):
        body = _srt_body(c.lines)
        subs.append(
            srt.Subtitle(
                i,
                timedelta(milliseconds=c.start_ms),
                timedelta(milliseconds=c.end_ms),
                ("{\\an8}" if c.top else "") + body,
            )
        )
    return srt.compose(subs, reindex=False)


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


def _vtt_settings(look: Look, top: bool) -> str:
    """Where VTT can put a cue: its line (percent of the height: the top edge for top
    layers, the bottom edge, ``,end``, for narration), and the horizontal box the margins
    leave (position is its centre)."""
    width = 1 - look.margin_left - look.margin_right
    centre = look.margin_left + width / 2
    line = _pct(look.margin) if top else _pct(1 - look.margin) + ",end"
    return f" line:{line} position:{_pct(centre)} size:{_pct(width)} align:center"


def _css(look: Look) -> str:
    """What ::cue CSS can say of a look: colour, font, weight, outline (as a text shadow)."""
    r, g, b, a = rgba(look.color)
    o = look.outline_color.lstrip("#")[:6]
    shadow = f"0 0 {max(1, round(look.outline * 1080))}px #{o}" if look.outline else "none"
    return (
        f"color: #{r:02X}{g:02X}{b:02X}{a:02X}; font-family: \"{look.font}\", sans-serif; "
        f"font-weight: {'bold' if look.bold else 'normal'}; text-shadow: {shadow};"
    )


VTT_CLASSES = {False: "narration", True: "qualifiers"}


def write_vtt(cues: list[Cue], canvas: Canvas) -> str:
    style = canvas.style
    out = ["WEBVTT", "", "STYLE"]
    out += [
        f"::cue(.{VTT_CLASSES[top]}) {{ {_css(_look(style, top))} }}" for top in (False, True)
    ]
    out.append("")
    for c in cues:
        settings = _vtt_settings(_look(style, c.top), c.top)
        cls = VTT_CLASSES[c.top]
        out.append(f"{_vtt_time(c.start_ms)} --> {_vtt_time(c.end_ms)}{settings}")
        out += [f"<c.{cls}>{_vtt_escape(line)}</c>" for line in c.lines]
        out.append("")
    return "\n".join(out)


def _look(style: Style, top: bool) -> Look:
    return style.qualifiers if top else style.narration


def _ass_text(line: str) -> str:
    # "{" opens an override block and "\N" "\n" "\h" are commands in ASS; keep them literal.
    line = line.replace("{", "｛").replace("}", "｝")
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


def _color(color: str) -> pysubs2.Color:
    r, g, b, opacity = rgba(color)
    return pysubs2.Color(r, g, b, 255 - opacity)  # ASS alpha: 0 is opaque


def ass_style(canvas: Canvas, look: Look, top: bool) -> pysubs2.SSAStyle:
    """A layer's look in the frame's pixels (PlayRes is the frame size)."""
    h, w = canvas.height, canvas.width
    return pysubs2.SSAStyle(
        fontname=look.font,
        fontsize=round(look.size * h),
        primarycolor=_color(look.color),
        outlinecolor=_color(look.outline_color),
        backcolor=_color(look.shadow_color),
        bold=look.bold,
        outline=round(look.outline * h, 1),
        shadow=round(look.shadow * h, 1),
        alignment=pysubs2.Alignment.TOP_CENTER if top else pysubs2.Alignment.BOTTOM_CENTER,
        marginv=round(look.margin * h),
        marginl=round(look.margin_left * w),
        marginr=round(look.margin_right * w),
    )


def write_ass(cues: list[Cue], canvas: Canvas) -> str:
    subs = pysubs2.SSAFile()
    subs.info.update({"PlayResX": str(canvas.width), "PlayResY": str(canvas.height)})
    # Overlays (qualifiers): smaller, in warning red, at the top: they never hide narration.
    subs.styles["Narration"] = ass_style(canvas, canvas.style.narration, top=False)
    subs.styles["Overlay"] = ass_style(canvas, canvas.style.qualifiers, top=True)
    subs.styles.pop("Default", None)
    for c in cues:
        subs.append(
            pysubs2.SSAEvent(
                start=c.start_ms,
                end=c.end_ms,
                text="\\N".join(_ass_text(line) for line in c.lines),
                style="Overlay" if c.top else "Narration",
                layer=c.layer,
            )
        )
    return str(subs.to_string("ass"))


WRITERS: dict[str, Callable[[list[Cue], Canvas], str]] = {
    "srt": write_srt,
    "vtt": write_vtt,
    "ass": write_ass,
}

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


def write_vtt(cues: list[Cue], canvas: Canvas) -> str:
    out = ["WEBVTT", ""]
    for c in cues:
        settings = " line:0 position:50% align:center" if c.top else ""
        out.append(f"{_vtt_time(c.start_ms)} --> {_vtt_time(c.end_ms)}{settings}")
        out += [_vtt_escape(line) for line in c.lines]
        out.append("")
    return "\n".join(out)


def _ass_text(line: str) -> str:
    # "{" opens an override block and "\N" "\n" "\h" are commands in ASS; keep them literal.
    line = line.replace("{", "｛").replace("}", "｝")
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


def _style(
    canvas: Canvas, size: int, color: tuple[int, int, int], outline: float, top: bool
) -> pysubs2.SSAStyle:
    unit = min(canvas.width, canvas.height) / 1080  # sizes are for a 1080-wide picture
    return pysubs2.SSAStyle(
        fontname=canvas.font,
        fontsize=round(size * unit),
        primarycolor=pysubs2.Color(*color),
        outlinecolor=pysubs2.Color(0, 0, 0),
        outline=outline * unit,
        shadow=0,
        alignment=pysubs2.Alignment.TOP_CENTER if top else pysubs2.Alignment.BOTTOM_CENTER,
        marginv=round(canvas.height * (0.08 if top else 0.12)),
    )


def write_ass(cues: list[Cue], canvas: Canvas) -> str:
    subs = pysubs2.SSAFile()
    subs.info.update({"PlayResX": str(canvas.width), "PlayResY": str(canvas.height)})
    # Overlays: smaller, tinted, at the top, so they never hide the narration.
    subs.styles["Narration"] = _style(canvas, 64, (255, 255, 255), 3, top=False)
    subs.styles["Overlay"] = _style(canvas, 44, (255, 230, 120), 2, top=True)
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

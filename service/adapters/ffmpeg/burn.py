"""Burned-in subtitles drawn by one overlay. ffmpeg's subtitles filter blends every glyph's
shadow, outline and fill into every frame in plain C: on a 1080x1920 picture that costs
about half of what x264 ultrafast does. Here libass draws each state of the subtitles (a
span in which the same cues show) once, on a transparent canvas, and ffmpeg's overlay lays
that image over each frame of the span: one SIMD blend of the one box where text ever
shows. The pictures are the same: libass renders, at the same times, from the same file.

Timing: libass shows a cue on a frame when ``start <= t < end`` in whole milliseconds.
Each state is drawn at half a millisecond after it begins (so libass's truncation of the
time lands on its first millisecond) and laid over the frames from half a millisecond
before it (so a frame exactly on a cue's start shows the cue).

Word-by-word captions change what shows at every word (and a popping word a few times
more), other text only at its cues: the narration's events are then drawn apart, as their
own states over the narration's own box, under the rest. Each state's cost is libass's
drawing and the conversion of its box for the overlay; a word's state then costs the
narration's band, not the box that reaches up to the hook."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from service.adapters.ffmpeg.parts import concat_file
from service.adapters.process import run
from service.config import Settings

if TYPE_CHECKING:  # numpy and pysubs2 load on the first burn-in, not with the CLI
    import pysubs2

HALF_MS = 0.0005
_SWITCH = re.compile(r"\\t\((\d+),(\d+),")  # a \t(t1,t2,...) switch or animation (captions)
_SCALE = re.compile(r"\\fsc[xy]([\d.]+)")
_OVERRIDE = re.compile(r"\{[^{}]*\}")  # literal braces are written full-width


@dataclass(frozen=True, slots=True)
class Box:
    """Where text ever shows, in pixels; even, so chroma samples line up."""

    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True, slots=True)
class Burn:
    """What a burn-in encode needs: the subtitles, a transparent canvas of the picture's size
    (raw RGBA) to draw them on, the times (ms) at which what shows changes, and the box."""

    ass: Path
    canvas: Path
    width: int
    height: int
    marks: tuple[int, ...]
    box: Box | None  # None: no text at all
    under: Burn | None = None  # the narration's word-by-word events, drawn apart, below


def marks_of(spans: list[tuple[int, int]]) -> tuple[int, ...]:
    """The times (ms) at which the set of cues showing changes, 0 first."""
    return tuple(sorted({0, *(a for a, _ in spans), *(b for _, b in spans)}))


def canvas_listing(burn: Burn, start: float | None, end: float | None) -> str:
    """The concat demuxer's list of canvas frames for the states that show from ``start`` up
    to ``end`` (source seconds, None: the picture's start or end). Its first frame is drawn
    at ``start`` (the input is offset by it: ``-itsoffset``), each later state half a
    millisecond after it begins (see the module's note)."""
    first = start or 0.0
    times = [first, *(m / 1000 + HALF_MS for m in burn.marks if first < m / 1000)]
    if end is not None:
        times = [t for t in times if t < end]
    size = f"option video_size {burn.width}x{burn.height}"
    lines = ["ffconcat version 1.0"]
    for i, t in enumerate(times):
        lines += [concat_file(burn.canvas), size, "option pixel_format rgba"]
        lines.append("option framerate 1000000")  # microsecond timestamps
        if i + 1 < len(times):
            lines.append(f"duration {times[i + 1] - t:.6f}")
    return "".join(f"{line}\n" for line in lines)


def layers(burn: Burn) -> tuple[Burn, ...]:
    """The streams of states a burn-in lays over the picture, the lowest first: those with
    any text (``overlay_filters`` takes one input of canvas frames each, in this order)."""
    return tuple(b for b in (burn.under, replace(burn, under=None)) if b and b.box)


def listings(burn: Burn, start: float | None, end: float | None) -> list[str]:
    """``canvas_listing`` of each of the burn-in's ``layers``."""
    return [canvas_listing(b, start, end) for b in layers(burn)]


def _escape(path: Path) -> str:
    """``path`` as a quoted filter option value in a filter graph: escaped for the option
    parser (backslash, quote, colon), then quoted for the graph parser, where a quote cannot
    be quoted: it is closed, given escaped, and reopened."""
    value = str(path).replace("\\", "\\\\").replace("'", "\\'").replace(":", "\\:")
    return "'" + value.replace("'", "'\\''") + "'"


def overlay_filters(burn: Burn, text_input: int, main: str) -> str:
    """The filter graph that draws the states (inputs from ``text_input`` on, the canvas
    listings of the ``layers``) and lays them over the ``main`` stream, the lowest first,
    ending unlabelled."""
    drawn = layers(burn)
    graph = ""
    for i, layer in enumerate(drawn):
        graph += _overlay(layer, text_input + i, main, i)
        if i + 1 < len(drawn):
            main = f"[burnt{i}]"
            graph += f"{main};"
    return graph


def _overlay(burn: Burn, text_input: int, main: str, n: int) -> str:
    """One stream of states laid over ``main``. libass's drawing on a transparent canvas
    keeps its colours multiplied by their cover; overlay wants them straight."""
    assert burn.box is not None
    b = burn.box
    text = "[text]" if n == 0 else f"[text{n}]"
    return (
        f"[{text_input}:v]subtitles=filename={_escape(burn.ass)}:alpha=1,"
        f"setpts=max(PTS-{2 * HALF_MS}/TB\\,0),crop={b.w}:{b.h}:{b.x}:{b.y},"
        f"format=gbrap,unpremultiply=inplace=1{text};"
        f"{main}{text}overlay={b.x}:{b.y}:eof_action=repeat"
    )


def box_of(alpha: bytes, width: int, height: int) -> Box | None:
    """The even-aligned box around every pixel with any cover, or None if there is none."""
    import numpy as np

    a = np.frombuffer(alpha, np.uint8, width * height).reshape(height, width)
    rows, cols = np.flatnonzero(a.any(axis=1)), np.flatnonzero(a.any(axis=0))
    if not len(rows):
        return None
    x, y = int(cols[0]) & ~1, int(rows[0]) & ~1
    x1, y1 = min(width, (int(cols[-1]) + 2) & ~1), min(height, (int(rows[-1]) + 2) & ~1)
    return Box(x, y, x1 - x, y1 - y)


def all_at_once(ass: pysubs2.SSAFile) -> pysubs2.SSAFile:
    """Every cue shown in the same second, each on its own layer: libass moves cues of one
    layer apart when they meet, never cues of different layers, so each lands where it
    lands in its own time (the cues of one layer never overlap in time). Each is drawn
    opaque (a hidden box layer too) and at the largest scale any of its words reaches (an
    emphasised or popping word), so the cover holds every state."""
    import pysubs2

    out = pysubs2.SSAFile()
    out.info, out.styles = dict(ass.info), dict(ass.styles)
    for i, event in enumerate(ass.events):
        scale = max([100.0, *(float(x) for x in _SCALE.findall(event.text))])
        # every word shown: a revealed one too
        text = f"{{\\alpha&H00&\\fscx{scale:g}\\fscy{scale:g}}}" + _OVERRIDE.sub("", event.text)
        out.append(pysubs2.SSAEvent(start=0, end=1000, text=text, style=event.style, layer=i))
    return out


def _instants(t1: int, t2: int, fps: float) -> list[int]:
    """The instants (ms) a ``\\t`` from t1 to t2 changes what shows: t1 for a switch; for
    an animation (a popping word) each frame's start inside it, so every frame of it is
    drawn at its own time, and its end."""
    if t2 <= t1:
        return [t1]
    first, last = math.ceil(t1 * fps / 1000 - 1e-9), math.floor(t2 * fps / 1000 + 1e-9)
    frames = {math.ceil(f * 1000 / fps - 1e-9) for f in range(first, last + 1)}
    return sorted({t1, *frames, t2})


def spans_of(subs: pysubs2.SSAFile, fps: float = 30.0) -> list[tuple[int, int]]:
    """When each cue shows, and (word-by-word captions) the instants each ``\\t`` inside
    one changes it: what shows changes there too, so each starts a state."""
    shown = [e for e in subs.events if e.end > e.start]
    spans = [(e.start, e.end) for e in shown]
    return spans + [
        (t, t)
        for e in shown
        for t1, t2 in _SWITCH.findall(e.text)
        for t in _instants(e.start + int(t1), e.start + int(t2), fps)
    ]


def prepare(
    ass: Path, canvas: Path, width: int, height: int, settings: Settings, fps: float = 30.0
) -> Burn:
    """Read the subtitles' timing, write the ``canvas`` and find the box of each stream of
    states: libass draws every cue at once on one frame, whose cover is measured. ``fps``:
    the picture's, the step an animation is drawn at. Word-by-word narration is split off
    (see the module's note) into ``<canvas>.words.ass``, the rest into ``<canvas>.rest.ass``
    (``made_by``: the files to remove after the encode)."""
    import pysubs2

    from service.domain.subtitles.ass import WORD_LAYERS

    subs = pysubs2.load(str(ass), encoding="utf-8")
    words = [e for e in subs.events if e.layer in WORD_LAYERS]
    if not any(_SWITCH.search(e.text) for e in words):
        return _stream(ass, subs, canvas, width, height, settings, fps)
    files = [canvas.with_suffix(".words.ass"), canvas.with_suffix(".rest.ass")]
    parts = [_only(subs, words), _only(subs, [e for e in subs.events if e not in words])]
    for file, part in zip(files, parts, strict=True):
        file.write_text(part.to_string("ass"), encoding="utf-8")
    under = _stream(files[0], parts[0], canvas, width, height, settings, fps)
    rest = _stream(files[1], parts[1], canvas, width, height, settings, fps)
    return replace(rest, under=under)


def made_by(burn: Burn) -> tuple[Path, ...]:
    """The files ``prepare`` wrote for ``burn``: its canvas and any split subtitles."""
    if burn.under is None:
        return (burn.canvas,)
    return burn.canvas, burn.under.ass, burn.ass


def _only(subs: pysubs2.SSAFile, events: list[pysubs2.SSAEvent]) -> pysubs2.SSAFile:
    import pysubs2

    out = pysubs2.SSAFile()
    out.info, out.styles, out.events = dict(subs.info), dict(subs.styles), list(events)
    return out


def _stream(
    ass: Path,
    subs: pysubs2.SSAFile,
    canvas: Path,
    width: int,
    height: int,
    settings: Settings,
    fps: float,
) -> Burn:
    """One stream of states: ``subs`` (the text of ``ass``) timed, its cover measured."""
    spans = spans_of(subs, fps)
    burn = Burn(ass, canvas, width, height, marks_of(spans), None)
    if not spans:
        return burn
    sample = canvas.with_name(f"{canvas.stem}.{ass.stem}.sample.ass")
    sample.write_text(all_at_once(subs).to_string("ass"), encoding="utf-8")
    try:
        alpha = run(box_args(sample, width, height, settings), settings.ffmpeg_timeout).stdout
    finally:
        sample.unlink(missing_ok=True)
    canvas.write_bytes(bytes(width * height * 4))
    return replace(burn, box=box_of(alpha, width, height))


def box_args(sample: Path, width: int, height: int, settings: Settings) -> list[str]:
    """One frame of ``sample`` drawn on a transparent canvas: its cover, 8-bit, on stdout."""
    return [
        settings.ffmpeg, "-nostdin", "-v", "error", "-f", "lavfi",
        "-i", f"color=c=black@0:s={width}x{height}:d=1,format=rgba",
        "-vf", f"subtitles=filename={_escape(sample)}:alpha=1,alphaextract",
        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1",
    ]  # fmt: skip

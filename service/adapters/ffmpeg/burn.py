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
narration's band, not the box that reaches up to the hook.

The canvas file is a few transparent pixels, padded to the picture's size in the graph: a
canvas of the picture's size (8 MB at 1080x1920) cost each state a read of it, a copy (the
decoded frame shares its packet, so it is not writable for libass) and fresh pages, about
a third of a popping narration's states' cost; the pad fills a pooled frame instead."""

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
CANVAS = 2  # the canvas file's side in pixels (see the module's note)
_SWITCH = re.compile(r"\\t\((\d+),(\d+),")  # a \t(t1,t2,...) switch or animation (captions)
_SCALE = (re.compile(r"\\fscx([\d.]+)"), re.compile(r"\\fscy([\d.]+)"))
_ANIMATED = re.compile(r"\\t\((?:[^()]|\([^()]*\))*\)")  # a \t(...), a \clip(...) inside
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
    """What a burn-in encode needs: the subtitles, a transparent canvas (raw RGBA, CANVAS
    pixels square, padded to the picture's ``width`` x ``height``) to draw them on, the
    times (ms) at which what shows changes, and the box."""

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
    size = f"option video_size {CANVAS}x{CANVAS}"
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
    """One stream of states laid over ``main``: each canvas frame padded to the picture's
    size, drawn on, cropped to the box. libass's drawing on a transparent canvas keeps its
    colours multiplied by their cover; overlay wants them straight."""
    assert burn.box is not None
    b = burn.box
    text = "[text]" if n == 0 else f"[text{n}]"
    return (
        f"[{text_input}:v]pad={burn.width}:{burn.height}:0:0:black@0,"
        f"subtitles=filename={_escape(burn.ass)}:alpha=1,"
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


def all_at_once(streams: list[pysubs2.SSAFile]) -> pysubs2.SSAFile:
    """Every cue of stream ``k`` shown in second ``k``, each on its own layer: libass moves
    cues of one layer apart when they meet, never cues of different layers, so each lands
    where it lands in its own time (the cues of one layer never overlap in time). Each is
    drawn opaque (a hidden box layer too), each piece of its text at the largest scale it
    reaches (an emphasised or popping word), so the cover holds every state. The streams
    share their styles (``prepare`` splits one file)."""
    import pysubs2

    out = pysubs2.SSAFile()
    out.info, out.styles = dict(streams[0].info), dict(streams[0].styles)
    for k, subs in enumerate(streams):
        for i, event in enumerate(subs.events):
            style = subs.styles.get(event.style, pysubs2.SSAStyle.DEFAULT_STYLE)
            text = "{\\alpha&H00&}" + _at_largest(event.text, style)  # a revealed word too
            at = 1000 * k
            out.append(
                pysubs2.SSAEvent(start=at, end=at + 1000, text=text, style=event.style, layer=i)
            )
    return out


def _at_largest(text: str, style: pysubs2.SSAStyle) -> str:
    """``text`` without its override tags, each piece (the text between two blocks of tags)
    scaled to the most the tags before it can make it: a plain ``\\fscx``/``\\fscy`` sets
    the scale (``\\r`` the style's), one inside a ``\\t`` may reach it later. Never under
    100 % (the sample's floor), nor under the style's at the start."""
    floor = (max(100.0, style.scalex), max(100.0, style.scaley))
    scale = list(floor)
    blocks, pieces = _OVERRIDE.findall(text), _OVERRIDE.split(text)
    out = [f"{{\\fscx{scale[0]:g}\\fscy{scale[1]:g}}}{pieces[0]}" if pieces[0] else ""]
    for block, piece in zip(blocks, pieces[1:], strict=True):
        moved = "".join(_ANIMATED.findall(block))
        plain = _ANIMATED.sub("", block)
        for axis in (0, 1):
            set_to = _scales(plain, axis) + ([floor[axis]] if "\\r" in plain else [])
            base = max(set_to) if set_to else scale[axis]
            scale[axis] = max([100.0, base, *_scales(moved, axis)])
        if piece:
            out.append(f"{{\\fscx{scale[0]:g}\\fscy{scale[1]:g}}}{piece}")
    return "".join(out)


def _scales(tags: str, axis: int) -> list[float]:
    """The ``\\fscx`` (axis 0) or ``\\fscy`` (axis 1) values in ``tags``."""
    return [float(v) for v in _SCALE[axis].findall(tags)]


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
    states: libass draws every cue of a stream at once on one frame, whose cover is
    measured (one ffmpeg, one frame a stream). ``fps``: the picture's, the step an
    animation is drawn at. Word-by-word narration is split off (see the module's note) into
    ``<canvas>.words.ass``, the rest into ``<canvas>.rest.ass`` (``made_by``: the files to
    remove after the encode)."""
    import pysubs2

    from service.domain.subtitles.ass import WORD_LAYERS

    subs = pysubs2.load(str(ass), encoding="utf-8")
    words = [e for e in subs.events if e.layer in WORD_LAYERS]
    streams = [(ass, subs)]
    if any(_SWITCH.search(e.text) for e in words):
        files = [canvas.with_suffix(".words.ass"), canvas.with_suffix(".rest.ass")]
        parts = [_only(subs, words), _only(subs, [e for e in subs.events if e not in words])]
        for file, part in zip(files, parts, strict=True):
            file.write_text(part.to_string("ass"), encoding="utf-8")
        streams = list(zip(files, parts, strict=True))
    spans = [spans_of(part, fps) for _, part in streams]
    shown = [
        part if timed else _only(part, []) for (_, part), timed in zip(streams, spans, strict=True)
    ]
    boxes = _covers(shown, canvas, width, height, settings) if any(spans) else [None] * len(shown)
    canvas.write_bytes(bytes(CANVAS * CANVAS * 4))
    burns = [
        Burn(file, canvas, width, height, marks_of(timed), box)
        for (file, _), timed, box in zip(streams, spans, boxes, strict=True)
    ]
    return burns[0] if len(burns) == 1 else replace(burns[1], under=burns[0])


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


def _covers(
    streams: list[pysubs2.SSAFile], canvas: Path, width: int, height: int, settings: Settings
) -> list[Box | None]:
    """The box of each stream's cover: one frame each of ``all_at_once``, drawn by one
    ffmpeg (a process and a libass set-up, not one a stream)."""
    sample = canvas.with_name(f"{canvas.stem}.sample.ass")
    sample.write_text(all_at_once(streams).to_string("ass"), encoding="utf-8")
    try:
        args = box_args(sample, width, height, settings, len(streams))
        alpha = run(args, settings.ffmpeg_timeout).stdout
    finally:
        sample.unlink(missing_ok=True)
    size = width * height
    return [box_of(alpha[k * size : (k + 1) * size], width, height) for k in range(len(streams))]


def box_args(
    sample: Path, width: int, height: int, settings: Settings, frames: int = 1
) -> list[str]:
    """``frames`` frames of ``sample``, one a second from 0, drawn on a transparent canvas:
    their cover, 8-bit, on stdout."""
    return [
        settings.ffmpeg, "-nostdin", "-v", "error", "-f", "lavfi",
        "-i", f"color=c=black@0:s={width}x{height}:r=1:d={frames},format=rgba",
        "-vf", f"subtitles=filename={_escape(sample)}:alpha=1,alphaextract",
        "-frames:v", str(frames), "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1",
    ]  # fmt: skip

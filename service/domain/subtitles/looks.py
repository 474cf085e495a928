"""A narration cue's ASS event text, word by word (pure): each line cut into pieces where a
word or an emphasised keyword starts or ends, and each piece given the override tags of the
caption look (karaoke.py times the words).

Looks: ``highlight`` (the word being spoken in the highlight colour), ``reveal`` (words
hidden until spoken, holding their place), ``pop`` (the word being spoken in the highlight
colour, entering at 120 % and settling to its size over 120 ms, in steps: 120 % then 110 %,
60 ms each; the line itself stays still, the word hidden in it while it pops, and a second
event over it, ``popped``, draws the popping word alone: the same line, every other piece
hidden, laid out as the line is, so the scaled word stays centred where it sits),
``box`` (the text as static; a second event under it, ``boxes``, whose text is invisible
and whose opaque box, BorderStyle 3, shows under the word being spoken only, from its onset
to the next word's). Emphasis draws its pieces in the emphasis colour and size in every
look, the box layer included, so both layers lay the line out alike."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from service.domain.subtitles.karaoke import (
    Ink,
    TimedWord,
    _align,
    _alpha,
    _bgr,
    _cut,
    _switch,
    ass_start,
)

Span = tuple[int, int]
POP_SCALE = 1.2  # a popping word starts this much larger
POP_MS = 120  # and settles to its size in this long
# ...in steps (ms into the pop, scale): each state of a pop is one libass drawing of the
# burn-in, and a step holds a frame or two at 30 fps; the scales recur, so do the glyphs.
POP_STEPS = ((0, POP_SCALE), (POP_MS // 2, (1 + POP_SCALE) / 2))
HIDDEN = "&HFF&"


@dataclass(slots=True)
class _Pen:
    """What the tags written so far leave in force: emphasis on, a word hidden (reveal)."""

    emphasis: bool = False
    hidden: bool = False


def _scale(x: float) -> str:
    return f"{x * 100:.4g}"


def _rest(ink: Ink, emphasis: bool) -> str:
    """The look of a piece between switches: the emphasis colour and size, or the text's."""
    color, s = (ink.emphasis, _scale(ink.scale)) if emphasis else (ink.color, "100")
    return f"\\1c{_bgr(color)}\\fscx{s}\\fscy{s}"


def _word_tags(
    w: TimedWord, t0: int, mode: str, ink: Ink, emphasis: bool, pen: _Pen
) -> tuple[str, str]:
    """The tags before a word's piece and after it: its switches, and the look the text
    after it returns to (a block's tags, a ``\\t`` too, hold for the text that follows)."""
    on, off = w.start_ms - t0, w.end_ms - t0
    base = _bgr(ink.emphasis if emphasis else ink.color)
    if mode == "reveal":
        shown = f"\\1a{_alpha(ink.color)}\\3a{_alpha(ink.outline)}\\4a{_alpha(ink.shadow)}"
        if on > 0:
            pen.hidden = True
            return "\\alpha" + HIDDEN + _switch(on, shown), ""
        return (shown if pen.hidden else ""), ""
    if off <= max(on, 0):  # unspoken: never switched
        return "", ""
    if mode == "boxes":
        box = f"\\3a{_alpha(ink.box)}"
        return f"\\3a{HIDDEN}" + _switch(on, box) + f"\\t({off},{off},\\3a{HIDDEN})", (
            f"\\3a{HIDDEN}"
        )
    if mode == "popped":
        return _popped(w, t0, ink, emphasis)
    tags = _switch(on, f"\\1c{_bgr(ink.highlight)}") + f"\\t({off},{off},\\1c{base})"
    if mode == "pop":  # hidden while the popped event draws it
        hide, show = _alphas(ink, HIDDEN), _alphas(ink)
        tags = (
            _switch(on, f"\\1c{_bgr(ink.highlight)}{hide}")
            + f"\\t({_pop_end(on, off)},{_pop_end(on, off)},{show})"
            + f"\\t({off},{off},\\1c{base})"
        )
        return tags, f"\\1c{base}{show}"
    return tags, f"\\1c{base}"


def _alphas(ink: Ink, hidden: str | None = None) -> str:
    """The alphas of the fill, outline and shadow: the ink's, or all ``hidden``."""
    inks = zip("134", (ink.color, ink.outline, ink.shadow), strict=True)
    return "".join(f"\\{n}a{hidden or _alpha(c)}" for n, c in inks)


def _pop_end(on: int, off: int) -> int:
    """When a word's pop ends (ms into its event): its steps' time, or its end before."""
    return min(off, max(on, 0) + POP_MS)


def _popped(w: TimedWord, t0: int, ink: Ink, emphasis: bool) -> tuple[str, str]:
    """A word in the ``popped`` event: hidden (the event's first tags hide every piece) and
    at its size but while it pops, shown in the highlight colour at each step's scale."""
    on, off = w.start_ms - t0, w.end_ms - t0
    r = ink.scale if emphasis else 1.0
    start, end = max(on, 0), _pop_end(on, off)
    steps = [(start + at, scale) for at, scale in POP_STEPS if start + at < end]
    tags = ""
    for at, scale in steps:
        size = _scale(r * scale)
        shown = f"{_alphas(ink)}\\1c{_bgr(ink.highlight)}" if at == start else ""
        tags += _switch(at, f"{shown}\\fscx{size}\\fscy{size}")
    rest = f"\\fscx{_scale(r)}\\fscy{_scale(r)}"
    tags += f"\\t({end},{end},{_alphas(ink, HIDDEN)}{rest})"
    return tags, f"{_alphas(ink, HIDDEN)}{rest}"


def _line(
    line: str,
    spots: Sequence[Span],
    words: Sequence[TimedWord],
    marks: Sequence[Span],
    t0: int,
    mode: str,
    ink: Ink,
    pen: _Pen,
) -> str:
    """One line's text: its pieces, each after the tags that change the look there."""
    cuts = sorted({0, len(line), *itertools.chain(*spots), *itertools.chain(*marks)})
    parts: list[tuple[bool, str]] = []  # (is a block, text)
    for a, b in itertools.pairwise(cuts):
        j = next((i for i, (p, q) in enumerate(spots) if p <= a < q), None)
        emphasis = any(p <= a < q for p, q in marks)
        before, after = "", ""
        if emphasis != pen.emphasis:
            before, pen.emphasis = _rest(ink, emphasis), emphasis
        # reveal switches once a word (at its start); the others each piece of it
        if j is not None and mode != "static" and (mode != "reveal" or a == spots[j][0]):
            tags, undo = _word_tags(words[j], t0, mode, ink, emphasis, pen)
            before += tags
            after = undo if b == spots[j][1] else ""
        parts += [(True, before)] if before else []
        parts.append((False, line[a:b]))
        parts += [(True, after)] if after else []
    text = ""
    for i, (block, piece) in enumerate(parts):
        if block:
            text += "{" + piece + "}"
        else:  # a piece an override block follows: a trailing backslash would escape it
            text += _cut(piece) if i + 1 < len(parts) and parts[i + 1][0] else piece
    return text


def event_text(
    lines: Sequence[str],
    words: Sequence[TimedWord],
    event_start: int,
    mode: str,
    ink: Ink,
    marks: Sequence[Sequence[Span]] = (),
) -> str | None:
    """The event text of a cue whose ``lines`` are already escaped for ASS, each word's
    switches timed from the event's written start and each line's ``marks`` (emphasis)
    drawn; None when the words cannot all be found in the lines (the cue is then written
    without them)."""
    t0 = ass_start(event_start)
    out: list[str] = []
    k = 0
    pen = _Pen()
    for n, line in enumerate(lines):
        spots, nxt = _align(line, words, k) if words else ([], k)
        mine = marks[n] if n < len(marks) else ()
        out.append(_line(line, spots, words[k:nxt], mine, t0, mode, ink, pen))
        k = nxt
    if k < len(words):
        return None
    text = "\\N".join(out)
    return "{\\alpha" + HIDDEN + "}" + text if mode == "popped" else text


def karaoke_lines(
    lines: Sequence[str], words: Sequence[TimedWord], event_start: int, mode: str, ink: Ink
) -> str | None:
    """``event_text`` without emphasis (word-by-word looks only)."""
    return event_text(lines, words, event_start, mode, ink)

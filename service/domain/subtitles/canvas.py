"""What every subtitle writer shares (pure): the frame a file is laid out for, where each
layer goes on it, a cue's lines as readers split them, and text no reader takes for timing."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from service.domain.style import DEFAULT_STYLE, Look, Style
from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN, TITLE, Cue

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
    places = {
        NARRATION: Place(st.narration, "bottom", st.narration.margin),
        OVERLAY: Place(q, "top", q.margin),
        SCREEN: Place(st.screen_text, "top", max(st.screen_text.margin, below_top)),
        TITLE: Place(title, "middle", 0.5),
    }
    hook = next((c for c in cues if c.layer == HOOK), None)
    places[HOOK] = Place(st.hook_look, "top", hook_top(places, cues, hook, st.hook_look))
    return places


GAP = 0.01  # between the hook and a block it keeps clear of, / frame height


def _band(place: Place, cues: list[Cue]) -> tuple[float, float] | None:
    """The rows (top, bottom, / frame height) a layer's tallest cue of ``cues`` takes."""
    lines = max([len(c.lines) + len(c.translation) for c in cues], default=0)
    if not lines:
        return None
    tall = lines * place.look.size * LINE_HEIGHT
    if place.anchor == "top":
        return place.margin, place.margin + tall
    if place.anchor == "bottom":
        return 1 - place.margin - tall, 1 - place.margin
    return place.margin - tall / 2, place.margin + tall / 2


def hook_top(places: dict[int, Place], cues: list[Cue], hook: Cue | None, look: Look) -> float:
    """Where the hook's top goes: its look's margin when that is clear of every block shown
    while it is (the qualifiers, shot text, a title card, the narration), else the nearest
    top that is: the hook never covers another layer's text."""
    if hook is None:
        return look.margin
    during = [c for c in cues if c.layer != HOOK and c.start_ms < hook.end_ms]
    bands = [
        band
        for layer, place in places.items()
        if (band := _band(place, [c for c in during if c.layer == layer])) is not None
    ]
    tall = len(hook.lines) * look.size * LINE_HEIGHT
    tops = [look.margin, *(b + GAP for _, b in bands), *(a - GAP - tall for a, _ in bands)]
    clear = [
        t for t in tops if 0 <= t <= 1 - tall and all(t + tall <= a or t >= b for a, b in bands)
    ]
    return min(clear, key=lambda t: abs(t - look.margin), default=look.margin)

"""The cue model and the layout rules: narration cues from timed phrases, overlay cues on top.

Rules (Netflix timed-text guides, Simplified Chinese): lines of at most 16 full-width units
(42 characters for English), at most 2 lines, one line unless it does not fit, 5/6 s to 7 s
a cue, at most 9 characters a second (hanzi 1, Latin letters and digits 0.5), cues a pause of
0.5 s or less apart chained 2 frames apart, breaks where ``text.BREAK_COSTS`` says they cost
least, and zh-Hans display punctuation (``text.render_line``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from service.domain.spec import JobSpec
from service.domain.subtitles.karaoke import TimedWord
from service.domain.text import (
    Analysis,
    LineSpan,
    Segmenter,
    analyse,
    cost_at,
    ends_sentence,
    forced_lines,
    layout_lines,
    reading_chars,
    split_phrases,
)
from service.domain.units import frames_to_ms, s_to_ms

NARRATION, OVERLAY, SCREEN, TITLE, HOOK = 0, 1, 2, 3, 4  # ASS layers; higher draws on top


@dataclass(frozen=True, slots=True)
class Cue:
    start_ms: int
    end_ms: int
    lines: tuple[str, ...]
    layer: int = NARRATION  # overlays on layer 1 at the top; shot text on 2 (title cards 3)
    # The supplied translation's lines this cue shows under (or above) its own, laid out by
    # English rules (bilingual.py); never part of ``text``, which the reading speed counts.
    translation: tuple[str, ...] = ()
    # Narration: (segment index, start, end) of the text it shows, and its words' times for
    # word-by-word captions (karaoke.py, words.py).
    span: tuple[int, int, int] | None = None
    words: tuple[TimedWord, ...] = ()
    # Authored emphasis: ranges of the cue's letters and digits (emphasis.alnum_ranges).
    emphasis: tuple[tuple[int, int], ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def top(self) -> bool:
        return self.layer == OVERLAY

    @property
    def screen(self) -> bool:
        """A shot's on-screen text (caption or title card), not a subtitle."""
        return self.layer in (SCREEN, TITLE)


@dataclass(frozen=True, slots=True)
class TimedPhrase:
    """A phrase (character span of a segment's text) and when it is spoken, in ms."""

    start: int
    end: int
    start_ms: int
    end_ms: int


@dataclass(frozen=True, slots=True)
class Layout:
    language: str
    line_chars: int
    max_lines: int
    min_ms: int
    max_ms: int
    gap_ms: int
    segment: Segmenter | None = None  # CJK words never split across lines when given
    fps: float = 30.0
    chain_ms: int = 500  # a pause this short or shorter between cues is chained
    emphasis_scale: float = 1.0  # how much larger emphasised keywords are drawn
    max_words: int | None = None  # words a cue at most (subtitles.max_words_per_cue)

    @property
    def max_cps(self) -> float:
        """Reading speed: 9 characters/s for Chinese (hanzi 1, Latin 0.5), 20 for English."""
        return 9.0 if self.language == "zh" else 20.0

    @classmethod
    def for_spec(
        cls, spec: JobSpec, segment: Segmenter | None = None, emphasis_scale: float = 1.0
    ) -> Layout:
        o = spec.subtitles
        return cls(
            language=spec.language,
            line_chars=spec.line_chars,
            max_lines=o.max_lines,
            min_ms=s_to_ms(o.min_duration),
            max_ms=s_to_ms(o.max_duration),
            gap_ms=frames_to_ms(o.min_gap_frames, o.fps),
            segment=segment,
            fps=o.fps,
            emphasis_scale=emphasis_scale,
            max_words=o.max_words_per_cue,
        )


def timed_phrases(
    text: str,
    limit: int,
    words: list[tuple[int, int, int, int]],
    segment: Segmenter | None = None,
    keep: tuple[tuple[int, int], ...] = (),
) -> list[TimedPhrase]:
    """Time the phrases of ``text`` from an engine's boundaries (char start, char end, start
    ms, end ms), whether those are words (edge) or whole phrases (espeak). A boundary belongs
    to the phrase its first character falls in; a phrase no boundary starts in joins the
    phrase before it (or after it, at the start), so the phrases still cover the text."""
    spans = split_phrases(text, limit, segment, keep=keep)
    timed: list[list[int]] = []
    orphan_start: int | None = None
    for a, b in spans:
        mine = [w for w in words if a <= w[0] < b]
        if not mine:
            if timed:
                timed[-1][1] = b
            elif orphan_start is None:
                orphan_start = a
            continue
        start = a if orphan_start is None else orphan_start
        orphan_start = None
        timed.append([start, b, min(w[2] for w in mine), max(w[3] for w in mine)])
    return [TimedPhrase(*t) for t in timed]


CUE_COST = 3.0  # each cue: fewer, fuller cues unless a boundary is worth it
BOUNDARY_WEIGHT = 3.0  # a cue boundary separates more than a line break: it must cost less
LIST_BOUNDARY = 10.0  # a cue boundary between two items of a list
PAUSE_BONUS = 1.5  # a boundary at a 0.5 s pause is this much cheaper
SPEED_COST = 6.0  # per character/s over the reading speed
SHORT_COST = 3.0  # a cue up for less than the minimum duration
NEW_SENTENCE_COST = 3.0
CHAIN_COST = 100.0  # a cue so long that chaining it to the next would pass 7 s


def _chars_per_second(chars: float, start_ms: int, end_ms: int, next_ms: int | None) -> float:
    """Reading speed with the out-time extended as the timing rules allow: to 2 frames before
    the next cue when the pause is short, else up to 0.5 s past the speech."""
    until = end_ms + 500
    if next_ms is not None:
        until = min(until, next_ms - 67) if next_ms - end_ms > 500 else next_ms - 67
    return chars / max(0.001, (max(until, end_ms) - start_ms) / 1000)


def _ends_sentence(an: Analysis, end: int) -> bool:
    return ends_sentence(an.tokens, end)  # "U.S. cloud" does not end one; "3.5" neither


def narration_cues(
    text: str,
    phrases: list[TimedPhrase],
    layout: Layout,
    next_ms: int | None = None,
    segment: int = 0,
    keep: tuple[tuple[int, int], ...] = (),
) -> list[Cue]:
    """The cues of segment ``segment`` (see ``narration_groups``)."""
    return [
        narration_cue(phrases, i, j, lines, segment)
        for i, j, lines in narration_groups(text, phrases, layout, next_ms, keep)
    ]


def narration_cue(
    phrases: list[TimedPhrase], i: int, j: int, lines: list[str], segment: int = 0
) -> Cue:
    """The cue of ``phrases[i:j]`` of segment ``segment``, showing ``lines``."""
    span = (segment, phrases[i].start, phrases[j - 1].end)
    return Cue(phrases[i].start_ms, phrases[j - 1].end_ms, tuple(lines), span=span)


def narration_groups(
    text: str,
    phrases: list[TimedPhrase],
    layout: Layout,
    next_ms: int | None = None,
    keep: tuple[tuple[int, int], ...] = (),
) -> list[tuple[int, int, list[str]]]:
    """Each cue as the phrases it shows (``phrases[i:j]``) and its lines. Group
    consecutive phrases into cues by dynamic programming: each cue fits the lines
    and the 7 s bound, and the grouping minimises the break costs at cue boundaries and line
    breaks, reading-speed excess and the number of cues (boundaries at pauses are cheaper).
    ``next_ms``: when the next segment's speech starts, so the last cue can chain to it.
    ``keep``: the emphasised spans, never broken, drawn ``layout.emphasis_scale`` larger."""
    if not phrases:
        return []
    an = analyse(text, layout.language, layout.segment, keep)
    grow = layout.emphasis_scale - 1 if keep else 0.0
    n = len(phrases)
    limit = layout.line_chars
    continues_after = [bool(text[p.end :].strip()) for p in phrases]
    best: list[float] = [0.0] + [math.inf] * n
    choice: list[tuple[int, list[str]]] = [(0, [])] * (n + 1)
    for j in range(1, n + 1):
        last = phrases[j - 1]
        nxt = phrases[j] if j < n else None
        next_start = nxt.start_ms if nxt is not None else next_ms
        boundary = _boundary_cost(an, last, nxt)
        for i in range(j - 1, -1, -1):
            first = phrases[i]
            if i < j - 1 and _too_long(an, first, last, layout):
                break
            more = continues_after[j - 1]
            span = LineSpan(an, first.start, last.end, limit, layout.max_lines, more, grow)
            got = layout_lines(span)
            if got is None:
                if i < j - 1:
                    break
                got = forced_lines(span)
            line_cost, lines = got
            cost = best[i] + CUE_COST + line_cost + boundary
            cost += _timing_cost(an, phrases, i, j, "".join(lines), next_start, layout)
            if cost < best[j]:
                best[j] = cost
                choice[j] = (i, lines)
    return _backtrack(n, choice)


def _too_long(an: Analysis, first: TimedPhrase, last: TimedPhrase, layout: Layout) -> bool:
    """Whether a cue from ``first`` to ``last`` passes 7 s or the words a cue may hold."""
    if last.end_ms - first.start_ms > layout.max_ms:
        return True
    if not layout.max_words:
        return False
    shown = [t for t in an.tokens if first.start <= t.start < last.end]
    return sum(1 for t in shown if t.kind in ("word", "cjk")) > layout.max_words


def _boundary_cost(an: Analysis, last: TimedPhrase, nxt: TimedPhrase | None) -> float:
    """A cue boundary between ``last`` and ``nxt``: the break's cost, less for a pause."""
    if nxt is None:
        return 0.0
    gap = max(0, nxt.start_ms - last.end_ms)
    boundary = BOUNDARY_WEIGHT * cost_at(an, nxt.start) - PAUSE_BONUS * min(gap, 500) / 500
    if an.base[: nxt.start].rstrip().endswith("、"):
        boundary += LIST_BOUNDARY  # a list reads as one unit: not across two cues
    return boundary


def _timing_cost(
    an: Analysis,
    phrases: list[TimedPhrase],
    i: int,
    j: int,
    shown: str,
    next_start: int | None,
    layout: Layout,
) -> float:
    """What the cue of phrases i..j-1 costs in time: chaining past 7 s, reading speed, a
    flash shorter than the minimum, a sentence that starts inside it."""
    first, last = phrases[i], phrases[j - 1]
    cost = 0.0
    cps = _chars_per_second(reading_chars(shown), first.start_ms, last.end_ms, next_start)
    if (
        i < j - 1
        and next_start is not None
        and next_start - last.end_ms <= layout.chain_ms
        and next_start - layout.gap_ms - first.start_ms > layout.max_ms
    ):
        cost += CHAIN_COST
    cost += SPEED_COST * max(0.0, cps - layout.max_cps)
    if last.end_ms - first.start_ms < layout.min_ms:
        room = next_start - layout.gap_ms - first.start_ms if next_start else layout.min_ms
        # Held to the minimum where the next cue leaves room; a cue that cannot be is
        # flashed at the viewer.
        cost += SHORT_COST if room >= layout.min_ms else 5 * SHORT_COST
    if not _ends_sentence(an, last.end) and any(
        _ends_sentence(an, p.end) for p in phrases[i : j - 1]
    ):
        cost += NEW_SENTENCE_COST
    return cost


def _backtrack(n: int, choice: list[tuple[int, list[str]]]) -> list[tuple[int, int, list[str]]]:
    groups: list[tuple[int, int, list[str]]] = []
    j = n
    while j > 0:
        i, lines = choice[j]
        if any(line.strip() for line in lines):
            groups.append((i, j, lines))
        j = i
    return groups[::-1]

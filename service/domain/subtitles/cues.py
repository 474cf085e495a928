"""The cue model and the layout rules: narration cues from timed phrases, overlay cues on top.

Rules (Netflix timed-text guides): lines of at most 16 characters for Chinese (42 for
English), at most 2 lines, 5/6 s to 7 s a cue, at least 2 frames between consecutive cues of
a layer, breaks after punctuation, never inside a Latin word, no trailing ，。 on a Chinese cue.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from service.domain.spec import JobSpec
from service.domain.text import SENTENCE_END, Segmenter, split_phrases, strip_trailing, wrap

NARRATION, OVERLAY = 0, 1


@dataclass(frozen=True, slots=True)
class Cue:
    start_ms: int
    end_ms: int
    lines: tuple[str, ...]
    layer: int = NARRATION  # overlays sit on layer 1, at the top of the picture

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def top(self) -> bool:
        return self.layer == OVERLAY


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

    @classmethod
    def for_spec(cls, spec: JobSpec, segment: Segmenter | None = None) -> Layout:
        o = spec.subtitles
        return cls(
            language=spec.language,
            line_chars=spec.line_chars,
            max_lines=o.max_lines,
            min_ms=round(o.min_duration * 1000),
            max_ms=round(o.max_duration * 1000),
            gap_ms=round(o.min_gap_frames * 1000 / o.fps),
            segment=segment,
        )


def _lines(text: str, layout: Layout) -> list[str] | None:
    body = strip_trailing(text, layout.language)
    return wrap(body, layout.line_chars, layout.max_lines, layout.segment)


def timed_phrases(
    text: str,
    limit: int,
    words: list[tuple[int, int, int, int]],
    segment: Segmenter | None = None,
) -> list[TimedPhrase]:
    """Time the phrases of ``text`` from an engine's boundaries (char start, char end, start
    ms, end ms), whether those are words (edge) or whole phrases (espeak). A boundary belongs
    to the phrase its first character falls in; a phrase no boundary starts in joins the
    phrase before it (or after it, at the start), so the phrases still cover the text."""
    spans = split_phrases(text, limit, segment)
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


def narration_cues(text: str, phrases: list[TimedPhrase], layout: Layout) -> list[Cue]:
    """Group consecutive phrases into cues that fit the line limits and the 7 s bound.

    A cue closes at a sentence end once it has been up long enough to read.
    """
    cues: list[Cue] = []
    group: list[TimedPhrase] = []

    def close() -> None:
        if group:
            body = text[group[0].start : group[-1].end]
            lines = _lines(body, layout) or [strip_trailing(body, layout.language)]
            cues.append(Cue(group[0].start_ms, group[-1].end_ms, tuple(lines)))
            group.clear()

    for ph in phrases:
        if group:
            fits = _lines(text[group[0].start : ph.end], layout) is not None
            short = ph.end_ms - group[0].start_ms <= layout.max_ms
            last = text[group[-1].start : group[-1].end].rstrip()
            sentence_done = bool(last) and last[-1] in SENTENCE_END
            long_enough = group[-1].end_ms - group[0].start_ms >= layout.min_ms
            if not (fits and short) or (sentence_done and long_enough):
                close()
        group.append(ph)
    close()
    return [c for c in cues if "".join(c.lines).strip()]


# Overlays use a smaller font (44 vs 64 px in ASS), so a line holds proportionally more.
OVERLAY_WIDTH = 1.4


def overlay_cues(overlays: list[tuple[str, int, int]], layout: Layout) -> list[Cue]:
    out = []
    chars = round(layout.line_chars * OVERLAY_WIDTH)
    for text, start, end in overlays:
        lines = (
            wrap(text, chars, layout.max_lines, layout.segment)
            or wrap(text, chars, 4, layout.segment)
            or [text]
        )
        out.append(Cue(start, end, tuple(lines), OVERLAY))
    return out


def settle(cues: list[Cue], layout: Layout) -> list[Cue]:
    """Per layer: keep 2 frames between consecutive cues, and hold short cues for the minimum
    duration where the next cue leaves room. Returns all cues sorted by start."""
    out: list[Cue] = []
    for layer in sorted({c.layer for c in cues}):
        mine = sorted((c for c in cues if c.layer == layer), key=lambda c: c.start_ms)
        for i, cue in enumerate(mine):
            limit = mine[i + 1].start_ms - layout.gap_ms if i + 1 < len(mine) else None
            end = max(cue.end_ms, cue.start_ms + layout.min_ms)
            if limit is not None:
                end = min(end, limit)
            end = min(end, max(cue.end_ms, cue.start_ms + layout.max_ms))
            out.append(replace(cue, end_ms=max(end, cue.start_ms + 1)))
    return sorted(out, key=lambda c: (c.start_ms, c.layer))

"""Narration cues with their words timed, for word-by-word captions (pure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from service.domain.emphasis import alnum_ranges
from service.domain.subtitles.cues import Cue, Layout, TimedPhrase
from service.domain.subtitles.karaoke import TimedWord, cue_words, timed_words


def with_words(
    cues: list[Cue],
    texts: Sequence[str],
    bounds: Sequence[Sequence[TimedPhrase]],
    offsets: Sequence[int],
    layout: Layout,
) -> list[Cue]:
    """The narration ``cues`` with the words each shows (its ``span``: segment, start, end),
    timed from each segment's engine boundaries ``bounds`` (times into the segment's audio;
    ``offsets``: where each slot starts on the timeline). A segment without boundaries (a
    result stored before them) keeps static cues. Each switch is put on the first frame at
    or after the word's onset: a frame that starts before the onset never shows it, whatever
    the player rounds."""
    words: dict[int, list[TimedWord]] = {}
    for k, (text, mine, offset) in enumerate(zip(texts, bounds, offsets, strict=True)):
        if mine:
            spans = [(b.start, b.end, b.start_ms + offset, b.end_ms + offset) for b in mine]
            words[k] = [
                replace(
                    w,
                    start_ms=on_frame(w.start_ms, layout.fps),
                    end_ms=on_frame(w.end_ms, layout.fps),
                )
                for w in timed_words(text, spans, layout.language, layout.segment)
            ]
    return [
        replace(c, words=cue_words(words[c.span[0]], (c.span[1], c.span[2])))
        if c.span is not None and c.span[0] in words
        else c
        for c in cues
    ]


def with_emphasis(
    cues: list[Cue], texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
) -> list[Cue]:
    """The narration ``cues`` with the emphasised keywords each shows (``spans``: each
    segment's, into its ``texts``), as ranges of the cue's letters and digits."""
    out = []
    for c in cues:
        mine = spans[c.span[0]] if c.span is not None else ()
        if c.span is not None and mine:
            ranges = alnum_ranges(texts[c.span[0]], mine, c.span[1], c.span[2])
            c = replace(c, emphasis=ranges)
        out.append(c)
    return out


def on_frame(ms: int, fps: float) -> int:
    """The first frame that starts at or after ``ms``, in whole ms (rounded up, so that a
    frame's own start is never before ``ms``): a switch there lands on that frame."""
    return math.ceil(math.ceil(ms * fps / 1000 - 1e-6) * 1000 / fps - 1e-6)

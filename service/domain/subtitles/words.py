"""Narration cues with their words timed, for word-by-word captions (pure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from service.domain.subtitles.cues import Cue, Layout, TimedPhrase
from service.domain.subtitles.karaoke import cue_words, timed_words


def with_words(
    cues: list[Cue], text: str, bounds: Sequence[TimedPhrase], offset_ms: int, layout: Layout
) -> list[Cue]:
    """One segment's narration ``cues`` with the words each shows, timed from the engine's
    boundaries ``bounds`` (times into the segment's audio; ``offset_ms``: where its slot
    starts on the timeline). A segment without boundaries (a result stored before them)
    keeps static cues. Each switch is put on the first frame at or after the word's onset:
    a frame that starts before the onset never shows it, whatever the player rounds."""
    if not bounds:
        return cues
    spans = [(b.start, b.end, b.start_ms + offset_ms, b.end_ms + offset_ms) for b in bounds]
    words = [
        replace(w, start_ms=on_frame(w.start_ms, layout.fps), end_ms=on_frame(w.end_ms, layout.fps))
        for w in timed_words(text, spans, layout.language, layout.segment)
    ]
    return [replace(c, words=cue_words(words, c.span)) if c.span else c for c in cues]


def on_frame(ms: int, fps: float) -> int:
    """The first frame that starts at or after ``ms``, in whole ms (rounded up, so that a
    frame's own start is never before ``ms``): a switch there lands on that frame."""
    return math.ceil(math.ceil(ms * fps / 1000 - 1e-6) * 1000 / fps - 1e-6)

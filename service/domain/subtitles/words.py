"""Narration cues with their words timed, for word-by-word captions (pure)."""

from __future__ import annotations

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
    keeps static cues."""
    if not bounds:
        return cues
    spans = [(b.start, b.end, b.start_ms + offset_ms, b.end_ms + offset_ms) for b in bounds]
    words = timed_words(text, spans, layout.language, layout.segment)
    return [replace(c, words=cue_words(words, c.span)) if c.span else c for c in cues]

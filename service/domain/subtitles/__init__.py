"""Cue model, layout rules and the SRT/VTT/ASS writers."""

from service.domain.subtitles.cues import (
    HOOK,
    NARRATION,
    OVERLAY,
    SCREEN,
    TITLE,
    Cue,
    Layout,
    TimedPhrase,
    narration_cues,
    timed_phrases,
)
from service.domain.subtitles.karaoke import CAPTION_MODES, TimedWord, timed_words
from service.domain.subtitles.layers import hook_cue, overlay_cues, screen_cues, settle
from service.domain.subtitles.words import with_emphasis, with_words
from service.domain.subtitles.writers import WRITERS, Canvas

__all__ = [
    "CAPTION_MODES",
    "HOOK",
    "NARRATION",
    "OVERLAY",
    "SCREEN",
    "TITLE",
    "WRITERS",
    "Canvas",
    "Cue",
    "Layout",
    "TimedPhrase",
    "TimedWord",
    "hook_cue",
    "narration_cues",
    "overlay_cues",
    "screen_cues",
    "settle",
    "timed_phrases",
    "timed_words",
    "with_emphasis",
    "with_words",
]

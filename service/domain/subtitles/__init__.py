"""Cue model, layout rules and the SRT/VTT/ASS writers."""

from service.domain.subtitles.cues import (
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
from service.domain.subtitles.layers import overlay_cues, screen_cues, settle
from service.domain.subtitles.writers import WRITERS, Canvas

__all__ = [
    "NARRATION",
    "OVERLAY",
    "SCREEN",
    "TITLE",
    "WRITERS",
    "Canvas",
    "Cue",
    "Layout",
    "TimedPhrase",
    "narration_cues",
    "overlay_cues",
    "screen_cues",
    "settle",
    "timed_phrases",
]

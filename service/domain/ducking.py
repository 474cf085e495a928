"""Ducking, in one place: where the voice speaks (``under_speech``) and how far and how fast
what is under it dips. Two beds dip under the narration: the music (options ``music_level`` and
``music_duck``: a raised-cosine curve, service/audio/music.py; the editor exports carry its
level and the same intervals) and the source video's own audio (options ``original_audio``
mix: a fixed dip with linear ramps, in ffmpeg's volume filter, service/adapters/ffmpeg/media.py)."""

from __future__ import annotations

from collections.abc import Iterable

MUSIC_ATTACK_S = 0.25  # the music is fully down by the time speech starts
MUSIC_RELEASE_S = 0.6  # and comes back up this long after it ends
ORIGINAL_GAIN = 0.2  # the source's own audio under the narration: -14 dB
ORIGINAL_RAMP_S = 0.15  # its linear ramps down and back up


def under_speech(spoken: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) ms of each stretch of speech on the timeline, from each segment's slot
    start and how long its fitted speech lasts: what every ducking follows."""
    return [(start, start + speech) for start, speech in spoken]

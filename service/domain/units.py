"""Time units in one place, like pysubs2's ``time.py``. Inside narrate time is integer
milliseconds; audio is counted in samples; seconds appear only at the edges (the job spec,
the manifest, ffmpeg's arguments); edge-tts reports 100-ns ticks; subtitles count frames.

Every conversion to an integer rounds to the nearest unit (Python's ``round``: halves to
even), so a value converted there and back moves by at most half a unit; the one floor is
``frame_at``, which asks a different question (which frame is showing).

>>> ms_to_samples(1000, 24000)
24000
>>> samples_to_ms(24000, 24000), samples_to_ms(11, 22050)
(1000, 0)
>>> samples_to_ms(ms_to_samples(1234, 22050), 22050)
1234
>>> s_to_ms(2.5), ms_to_s(2500)
(2500, 2.5)
>>> ticks_to_ms(8_750_000)  # edge-tts's WordBoundary offset: 875 ms
875
>>> frames_to_ms(2, 30)  # the minimum gap between cues at 30 fps
67
>>> ms_to_frames(1000, 29.97)
30
>>> frame_at(999, 30), frame_at(1000, 30)  # the frame on screen at that instant
(29, 30)
"""

from __future__ import annotations

import math

TICKS_PER_MS = 10_000  # edge-tts (Azure) offsets and durations are in 100-ns ticks


def ms_to_samples(ms: float, rate: int) -> int:
    """Milliseconds -> the nearest whole number of samples at ``rate`` Hz."""
    return round(ms * rate / 1000)


def samples_to_ms(n: int, rate: int) -> int:
    """Samples at ``rate`` Hz -> the nearest whole millisecond."""
    return round(n * 1000 / rate)


def s_to_ms(seconds: float) -> int:
    """Seconds (the job spec) -> the nearest whole millisecond."""
    return round(seconds * 1000)


def ms_to_s(ms: float) -> float:
    """Milliseconds -> seconds (the manifest, ffmpeg's arguments)."""
    return ms / 1000


def ticks_to_ms(ticks: int) -> int:
    """100-ns ticks (edge-tts) -> the nearest whole millisecond."""
    return round(ticks / TICKS_PER_MS)


def frames_to_ms(frames: float, fps: float) -> int:
    """Video frames at ``fps`` -> the nearest whole millisecond."""
    return round(frames * 1000 / fps)


def frame_at(ms: float, fps: float) -> int:
    """The frame on screen at ``ms`` (the one that started at or before it): subtitles snap
    cue times to frame starts. The epsilon absorbs float error at exact frame boundaries."""
    return math.floor(ms * fps / 1000 + 1e-6)


def ms_to_frames(ms: float, fps: float) -> int:
    """Milliseconds -> the nearest whole frame at ``fps``."""
    return round(ms * fps / 1000)

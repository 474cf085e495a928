"""What a probe found in a video: the facts a job is planned on (kept in its plan)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class VideoInfo:
    format_name: str
    width: int
    height: int
    duration: float
    fps: float
    video_codec: str
    has_audio: bool
    # Every frame one 1/fps apart from a first frame at 0 (ffprobe's r_frame_rate equals its
    # avg_frame_rate, start_time 0): a file that can be cut at a frame by its time alone.
    constant_rate: bool = False

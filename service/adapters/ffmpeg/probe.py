"""ffprobe's view of an upload, checked against the limits before anything is decoded."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TypedDict

from service.config import Settings
from service.domain.errors import MediaInputError
from service.ports import VideoInfo


class Disposition(TypedDict, total=False):
    attached_pic: int  # 1: a cover picture, not the video


class SideData(TypedDict, total=False):
    side_data_type: str  # "Display Matrix" is the one with a rotation
    rotation: int | float  # the display matrix's, in degrees


class StreamTags(TypedDict, total=False):
    rotate: str  # older files' rotation, in degrees


class ProbeStream(TypedDict, total=False):
    """The fields of ffprobe's ``-show_streams`` JSON read here (numbers as ffprobe writes
    them: sizes as numbers, times and rates as text)."""

    codec_type: str
    codec_name: str
    width: int
    height: int
    duration: str
    start_time: str
    avg_frame_rate: str
    r_frame_rate: str
    disposition: Disposition
    side_data_list: list[SideData]
    tags: StreamTags


class ProbeFormat(TypedDict, total=False):
    format_name: str
    duration: str
    start_time: str


class ProbeOutput(TypedDict, total=False):
    """ffprobe's ``-show_format -show_streams -of json`` output, as far as it is read."""

    format: ProbeFormat
    streams: list[ProbeStream]


def probe_args(path: Path, settings: Settings) -> list[str]:
    return [
        settings.ffprobe, "-v", "error",
        "-protocol_whitelist", "file",
        "-format_whitelist", settings.allowed_formats,
        "-show_format", "-show_streams", "-of", "json",
        str(path),
    ]  # fmt: skip


def parse_probe(data: ProbeOutput, settings: Settings, name: str) -> VideoInfo:
    """Check ffprobe's figures against the limits before anything is decoded."""
    fmt: ProbeFormat = data.get("format") or {}
    streams: list[ProbeStream] = data.get("streams") or []
    video = next(
        (
            s
            for s in streams
            if s.get("codec_type") == "video" and not s.get("disposition", {}).get("attached_pic")
        ),
        None,
    )
    if video is None:
        raise MediaInputError("the file has no video stream", name)
    width, height = int(video.get("width") or 0), int(video.get("height") or 0)
    if _rotation(video) % 180 == 90:  # ffmpeg turns the frames upright: their size is swapped
        width, height = height, width
    if not (0 < width <= settings.max_width and 0 < height <= settings.max_height):
        raise MediaInputError(
            f"video is {width}x{height}, limits are {settings.max_width}x{settings.max_height}",
            name,
        )
    try:
        duration = float(fmt.get("duration") or video.get("duration") or 0)
    except ValueError:
        duration = 0.0
    if not 0 < duration <= settings.max_video_seconds:
        raise MediaInputError(
            f"video lasts {duration:g} s, must be between 0 and {settings.max_video_seconds:g} s",
            name,
        )
    rate = str(video.get("avg_frame_rate") or video.get("r_frame_rate") or "0/1")
    try:
        fps = float(Fraction(rate)) if rate != "0/0" else 0.0
    except (ValueError, ZeroDivisionError):
        fps = 0.0
    if fps > settings.max_fps:
        raise MediaInputError(f"video runs at {fps:g} fps, limit is {settings.max_fps:g}", name)
    return VideoInfo(
        format_name=str(fmt.get("format_name", "")),
        width=width,
        height=height,
        duration=duration,
        fps=fps or 30.0,
        video_codec=str(video.get("codec_name", "")),
        has_audio=any(s.get("codec_type") == "audio" for s in streams),
        constant_rate=fps > 0
        and video.get("r_frame_rate") == video.get("avg_frame_rate")
        and _float(video.get("start_time")) == 0.0
        and _float(fmt.get("start_time")) == 0.0,
    )


def _rotation(video: ProbeStream) -> int:
    """Degrees the player turns the picture (display matrix, or the older ``rotate`` tag)."""
    for side in video.get("side_data_list") or []:
        if "rotation" in side:
            return round(_float(side["rotation"]) or 0)
    return round(_float((video.get("tags") or {}).get("rotate", 0)) or 0)


def _float(value: object) -> float | None:
    try:
        return float(str(value))
    except ValueError:
        return None

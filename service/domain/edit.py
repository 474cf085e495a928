"""The job as an editor's timeline, in frames: what goes on the video, narration and music
tracks and which subtitle markers sit where. Pure (no OTIO, no files): the adapter
(service/adapters/files/timeline.py) turns it into timeline.otio, .fcpxml, .xml and .edl."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from service.domain.options import Export
from service.domain.subtitles import Cue
from service.domain.subtitles.writers import ASS_STYLES

# Each export's artifact name (the adapters write them from the one timeline).
EXPORT_FILES: dict[Export, str] = {
    "otio": "timeline.otio",
    "fcpxml": "timeline.fcpxml",
    "fcp7": "timeline.xml",
    "edl": "timeline.edl",
}
PACKAGE = "timeline-package.zip"
DEFAULT_FPS = 30.0
# The frame rates SMPTE timecode (an EDL's, FCP7 XML's) counts in: 23.976, 24, 25, 29.97, 30,
# 50, 59.94, 60.
# FCPXML gets the whole ones only: OTIO's writer (otio-fcpx-xml-adapter 1.0) places connected
# clips at int(rate), 29 fps for 29.97 (offsets such as 104475/29s, off the frame grid).
EDITOR_RATES = {
    "edl": (24000 / 1001, 24.0, 25.0, 30000 / 1001, 30.0, 50.0, 60000 / 1001, 60.0),
    "fcp7": (24000 / 1001, 24.0, 25.0, 30000 / 1001, 30.0, 50.0, 60000 / 1001, 60.0),
    "fcpxml": (24.0, 25.0, 30.0, 50.0, 60.0),
}
LAYERS = {0: "narration", 1: "qualifiers", 2: "screen text", 3: "title cards", 4: "hook"}


def segment_file(index: int) -> str:
    """The fitted WAV of segment ``index`` (0-based) as published: segments/01.wav."""
    return f"segments/{index + 1:02d}.wav"


def export_rate(kind: Export, fps: float | None) -> float:
    """The timeline's frame rate in each export: the video's (or 30); in FCPXML, FCP7 XML and
    the EDL the format's rate nearest it (29.97 -> 30 in FCPXML), else the first a whole multiple of
    it (15 -> 30), else 30."""
    rate = fps or DEFAULT_FPS
    if kind not in EDITOR_RATES:
        return rate
    near = sorted((abs(k - rate), k) for k in EDITOR_RATES[kind] if abs(k - rate) < 0.05)
    whole = [k for k in EDITOR_RATES[kind] if abs(k / rate - round(k / rate)) < 1e-3]
    return ([k for _, k in near] or whole or [DEFAULT_FPS])[0]


def frame(ms: int, fps: float) -> int:
    """The frame a time falls on: the nearest, so every boundary is the manifest's to a frame
    (each is rounded on its own, never a duration added up)."""
    return round(ms * fps / 1000)


# What narrate notes on a clip or marker (OTIO metadata, under "narrate"), for an editor.
class Ducking(TypedDict):
    level_db: float
    duck_db: float
    under_speech_s: list[list[float]]  # [start, end] of each stretch of speech
    keyframes: list[list[float]]  # [seconds, dB]


class MusicNote(TypedDict):
    narrate: Ducking


class SegmentSpan(TypedDict):
    segment: int  # 1-based
    start_ms: int
    end_ms: int


class SegmentNote(TypedDict):
    narrate: SegmentSpan


class CueText(TypedDict):
    text: str
    layer: int
    layer_name: str
    style: str
    subtitles: list[str]


class CueNote(TypedDict):
    narrate: CueText


@dataclass(frozen=True, slots=True)
class EditClip:
    """A clip on a track: ``media`` is a path relative to the timeline file."""

    name: str
    media: str
    start: int  # frame on the timeline
    frames: int
    metadata: SegmentNote | MusicNote | None = None  # a segment's span, the music's ducking


@dataclass(frozen=True, slots=True)
class EditMarker:
    name: str
    start: int
    frames: int
    metadata: CueNote


@dataclass(frozen=True, slots=True)
class Edit:
    """The whole timeline: ``video`` is empty without a supplied video (a gap of ``frames``)."""

    name: str
    fps: float
    frames: int
    video: list[EditClip]
    narration: list[EditClip]
    music: list[EditClip]
    markers: list[EditMarker]


@dataclass(frozen=True, slots=True)
class MusicBed:
    """The music as mixed: its file, how long it plays and where it ducks under the voice."""

    media: str
    length_ms: int
    level_db: float
    duck_db: float
    speech_ms: list[tuple[int, int]]
    source_ms: int = 0  # the file's own length, when shorter than the bed: it loops


def plan_edit(
    name: str,
    fps: float | None,
    slots: list[tuple[int, int]],
    cues: list[Cue],
    total_ms: int,
    video: tuple[str, int] | None = None,
    music: MusicBed | None = None,
    subtitles: tuple[str, ...] = (),
) -> Edit:
    """Slots are each segment's (start, end) in ms; ``video`` is its relative path and length.
    The timeline runs as long as the narration, the video and the music, whichever is longest."""
    rate = fps or DEFAULT_FPS
    longest = max(total_ms, video[1] if video else 0, music.length_ms if music is not None else 0)
    video_clips = [EditClip("video", video[0], 0, frame(video[1], rate))] if video else []
    narration = [
        EditClip(
            f"segment {i + 1:02d}",
            segment_file(i),
            frame(a, rate),
            frame(b, rate) - frame(a, rate),
            {"narrate": {"segment": i + 1, "start_ms": a, "end_ms": b}},
        )
        for i, (a, b) in enumerate(slots)
    ]
    music_clips = _music_clips(music, rate) if music else []
    markers = [
        EditMarker(
            c.text.replace("\n", " "),
            frame(c.start_ms, rate),
            max(1, frame(c.end_ms, rate) - frame(c.start_ms, rate)),
            {
                "narrate": {
                    "text": c.text,
                    "layer": c.layer,
                    "layer_name": LAYERS.get(c.layer, str(c.layer)),
                    "style": ASS_STYLES.get(c.layer, "Narration"),
                    "subtitles": list(subtitles),
                }
            },
        )
        for c in cues
    ]
    return Edit(name, rate, frame(longest, rate), video_clips, narration, music_clips, markers)


def _music_clips(music: MusicBed, fps: float) -> list[EditClip]:
    """The file back to back as the bed loops it, the last one cut at the bed's end; the
    ducking as metadata: the bed's level and, per stretch of speech, how far it dips (OTIO
    has no volume keyframes; an editor rebuilds them from these, in the timeline's seconds)."""
    ducking: Ducking = {
        "level_db": music.level_db,
        "duck_db": music.duck_db,
        "under_speech_s": [[a / 1000, b / 1000] for a, b in music.speech_ms],
        "keyframes": volume_keyframes(music),
    }
    loop = music.source_ms if 0 < music.source_ms < music.length_ms else music.length_ms
    starts = range(0, music.length_ms, loop)
    return [  # each its own name: FCP7 XML's writer makes equal clips one clip item
        EditClip(
            f"music {k + 1}" if len(starts) > 1 else "music",
            music.media,
            frame(a, fps),
            frame(min(a + loop, music.length_ms), fps) - frame(a, fps),
            {"narrate": ducking},
        )
        for k, a in enumerate(starts)
    ]


def volume_keyframes(music: MusicBed) -> list[list[float]]:
    """[seconds, dB] points of the bed's gain: its level, down by ``duck_db`` under speech."""
    points: list[list[float]] = [[0.0, music.level_db]]
    for a, b in music.speech_ms:
        low = music.level_db - music.duck_db
        points += [[a / 1000, music.level_db], [a / 1000, low], [b / 1000, low]]
        points.append([b / 1000, music.level_db])
    return points

"""What the pipeline's steps hand each other: the job's plan (stored whole with the job),
one fitted segment (plain data, stored as JSON between workers), and a finished job."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from service.domain import schemas
from service.domain.notices import Notice
from service.domain.options import MASTER_NAME
from service.domain.plan import JobPlan as JobPlan
from service.domain.plan import PlannedMaster as PlannedMaster
from service.domain.speech_compare import SpeechCheck
from service.domain.subtitles.cues import TimedPhrase

Progress = Callable[[float, str], None]
ARTIFACTS = (
    "narration.wav",
    "subtitles.srt",
    "subtitles.vtt",
    "subtitles.ass",
    "subtitles.zh-Hant.srt",
    "subtitles.zh-Hant.vtt",
    "subtitles.zh-Hant.ass",
    "subtitles.en.srt",
    "subtitles.en.vtt",
    "manifest.json",
    "video.mp4",
    "mix.wav",
    "timeline.otio",
    "timeline.fcpxml",
    "timeline.xml",
    "timeline.edl",
    "timeline-package.zip",
)
# Each fitted segment, published with the timeline exports as segments/01.wav ...: the one
# kind of artifact name with a slash, and nothing else with one (no way out of the job's dir).
SEGMENT_ARTIFACT = re.compile(r"segments/[0-9]{2,4}\.wav")
# Each master of a job with ``masters``: masters/<name>/<file>, its file one of the listed names
# but those made once for the job (the manifest, the timelines).
JOB_ONCE = ("manifest.json", "timeline")


def master_file(name: str) -> bool:
    return name in ARTIFACTS and not name.startswith(JOB_ONCE)


def is_artifact(name: str) -> bool:
    """A name the storage publishes and the API serves."""
    if name in ARTIFACTS or SEGMENT_ARTIFACT.fullmatch(name) is not None:
        return True
    top, _, rest = name.partition("/")
    master, _, file = rest.partition("/")
    return top == "masters" and MASTER_NAME.fullmatch(master) is not None and master_file(file)


def staged_artifacts(staged: Path) -> tuple[str, ...]:
    """The artifact names present in a staging directory: the listed ones, the segments, then
    each master's files."""
    segments = sorted(f"segments/{p.name}" for p in (staged / "segments").glob("*.wav"))
    masters = sorted(p.name for p in (staged / "masters").glob("*") if p.is_dir())
    return (
        tuple(n for n in ARTIFACTS if (staged / n).is_file())
        + tuple(n for n in segments if is_artifact(n))
        + tuple(
            f"masters/{m}/{n}"
            for m in masters
            for n in ARTIFACTS
            if is_artifact(f"masters/{m}/{n}") and (staged / "masters" / m / n).is_file()
        )
    )


def no_progress(fraction: float, stage: str) -> None:
    pass


class SegmentResult(BaseModel):
    """One fitted segment: its audio file (kept in the job's workspace) and everything the
    manifest and the subtitles need. Stored as JSON between workers (``to_json``)."""

    index: int
    slot_ms: int
    natural_ms: int
    speech_ms: int
    native_rate: float
    stretch_ratio: float
    engine: str
    voice: str
    sample_rate: int
    audio: str
    phrases: list[TimedPhrase]  # times into the segment's own audio (its slot starts at 0)
    # The engine's own boundaries (words, syllables or phrases) as source spans, same times:
    # what word-by-word captions are timed from. Empty in a result stored before them.
    words: list[TimedPhrase] = []
    warnings: list[Notice] = []
    timings: dict[str, float] = {}
    tts_calls: dict[str, int] = {}  # engine -> requests (cache misses)
    spoken_text: str = ""  # what the engine was given (the speech front-end's output)
    rewrites: int = 0  # spans of the text the front-end changed for that engine
    take: str | None = None  # the recorded take spoken instead of a synthesis (its part)
    alignment_cost: float | None = None  # the take's DTW cost against its text
    speech_check: SpeechCheck | None = None  # None: the job's check is off

    def to_json(self) -> str:
        return json.dumps(schemas.stamped(schemas.SEGMENT_RESULT, self.model_dump(mode="json")))

    @classmethod
    def from_json(cls, text: str) -> SegmentResult:
        """A result as a worker stored it (one of an earlier version upgraded first)."""
        return cls.model_validate(schemas.upgrade(schemas.SEGMENT_RESULT, json.loads(text)))

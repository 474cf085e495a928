"""What the pipeline's steps hand each other: the job's plan (stored whole with the job),
one fitted segment (plain data, stored as JSON between workers), and a finished job."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from service.domain.lexicons import UsedLexicon
from service.domain.notices import Notice
from service.domain.options import MASTER_NAME, MasterLoudness
from service.domain.spec import JobSpec, RenderOptions
from service.domain.speech_compare import SpeechCheck
from service.domain.style import Style
from service.domain.subtitles.cues import TimedPhrase
from service.domain.takes import Take
from service.ports import VideoInfo

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


class JobPlan(BaseModel):
    """A job as checked at the door, once (``Pipeline.plan``): the spec with the options
    applied, the options, each segment's voice chain, the resolved subtitle style, the video's
    facts, the warnings and the loudness target. The job record keeps it whole; every segment
    task and finalize load it, and never re-plan, re-probe or re-cast. ``narrate render`` runs
    on it too."""

    model_config = ConfigDict(frozen=True)

    spec: JobSpec
    options: RenderOptions
    voices: list[tuple[str, ...]]  # per segment: the voice ids to try, in order
    style: Style
    video: VideoInfo | None = None
    warnings: list[Notice] = []
    # The master's loudness target, resolved at the door (the options', else the settings');
    # None in a plan stored before per-job loudness: finalize uses the settings then.
    loudness: MasterLoudness | None = None
    # options.traditional was not asked for but set by the voices' locale (zh-TW, zh-HK).
    traditional_by_voice: bool = False
    # Per segment, the recorded take that stands for its synthesis (None: synthesised);
    # empty when the job has no takes.
    takes: list[Take | None] = []
    # Each master of ``options.masters``, resolved at the door (pipeline/masters.py).
    masters: list[PlannedMaster] = []
    # The pronunciation dictionaries the job names (options.lexicons), each at the version
    # resolved at the door, with its entries: every segment, retry and re-render reads these.
    lexicons: list[UsedLexicon] = []

    def take(self, index: int) -> Take | None:
        return self.takes[index] if index < len(self.takes) else None

    def for_master(self, master: PlannedMaster) -> JobPlan:
        """This plan as one master finishes it: its options, style and loudness."""
        update = {"options": master.options, "style": master.style, "loudness": master.loudness}
        return self.model_copy(update={**update, "masters": []})


class PlannedMaster(BaseModel):
    """One master as planned: the job's options with the master's preset's finishing fields
    and its own over them (``options``, holding no masters), its style and loudness resolved."""

    model_config = ConfigDict(frozen=True)

    name: str
    preset: str | None = None
    options: RenderOptions
    style: Style
    loudness: MasterLoudness


JobPlan.model_rebuild()  # its masters: PlannedMaster, defined after it


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

    @field_validator("phrases", mode="before")
    @classmethod
    def _from_rows(cls, value: Any) -> Any:
        """A result stored by an earlier version kept each phrase as [start, end, ms, ms]."""
        if isinstance(value, list):
            return [TimedPhrase(*p) if isinstance(p, list | tuple) else p for p in value]
        return value

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str) -> SegmentResult:
        return cls.model_validate_json(text)

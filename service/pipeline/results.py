"""What the pipeline's steps hand each other: the job's plan (stored whole with the job),
one fitted segment (plain data, stored as JSON between workers), and a finished job."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from pydantic import BaseModel, ConfigDict

from service.domain.notices import Notice
from service.domain.spec import JobSpec, RenderOptions
from service.domain.style import Style
from service.ports import VideoInfo

Progress = Callable[[float, str], None]
ARTIFACTS = (
    "narration.wav",
    "subtitles.srt",
    "subtitles.vtt",
    "subtitles.ass",
    "manifest.json",
    "video.mp4",
    "mix.wav",
)


def no_progress(fraction: float, stage: str) -> None:
    pass


class JobPlan(BaseModel):
    """A job as checked at the door, once (``Pipeline.plan``): the spec with the options
    applied, the options, each segment's voice chain, the resolved subtitle style, the video's
    facts and the warnings. The job record keeps it whole; every segment task and finalize
    load it, and never re-plan, re-probe or re-cast. ``narrate render`` runs on it too."""

    model_config = ConfigDict(frozen=True)

    spec: JobSpec
    options: RenderOptions
    voices: list[tuple[str, ...]]  # per segment: the voice ids to try, in order
    style: Style
    video: VideoInfo | None = None
    warnings: list[Notice] = []


@dataclass
class SegmentResult:
    """One fitted segment: its audio file (kept in the job's workspace) and everything the
    manifest and the subtitles need. Plain data, so a worker can store it as JSON."""

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
    phrases: list[tuple[int, int, int, int]]
    warnings: list[Notice] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    tts_calls: dict[str, int] = field(default_factory=dict)  # engine -> requests (cache misses)
    spoken_text: str = ""  # what the engine was given (the speech front-end's output)
    rewrites: int = 0  # spans of the text the front-end changed for that engine

    def to_json(self) -> str:
        data = asdict(self)
        data["warnings"] = [w.model_dump() for w in self.warnings]
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> SegmentResult:
        data = json.loads(text)
        data["phrases"] = [tuple(p) for p in data["phrases"]]
        data["warnings"] = [Notice.model_validate(w) for w in data.get("warnings", [])]
        return cls(**data)

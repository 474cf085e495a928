"""What the finishing stages share: the tools they work with (``Tools``), what finishing a job
is handed (``Handoff``: the plan, the fitted segments, where they are and where the artifacts
go), and one typed value (``Finish``, a Handoff) that each stage reads and adds to, from the
fitted segments to the manifest.

A job with masters finishes each master as a ``Finish`` of its own (its plan, its folder)
through the same stages; what masters have in common (a picture, a normalised narration) is
made once and kept in ``Shared``."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

from service import audio as dsp
from service.config import Settings
from service.domain.notices import Notice
from service.domain.options import MasterLoudness
from service.domain.subtitles import Cue
from service.domain.text import Segmenter
from service.pipeline.manifest import Manifest, MusicReport, Placed
from service.pipeline.results import JobPlan, PlannedMaster, Progress, SegmentResult, no_progress
from service.ports import Check, Converter, Encoding, Media, MuxRequest, Workspace
from service.ports.finishing import Timelines


@dataclass(frozen=True)
class Tools:
    """What the stages work with: the settings, ffmpeg (``media``), the word segmenter that
    breaks subtitle lines, the editor timelines' writer and the converter that makes
    Traditional tracks."""

    settings: Settings
    media: Media
    words: Segmenter | None
    timelines: Timelines
    converter: Converter | None = None

    def target(self, plan: JobPlan) -> MasterLoudness:
        """The job's loudness target as planned; the settings' for a plan stored before."""
        return plan.loudness or MasterLoudness(
            target_lufs=self.settings.target_lufs, true_peak_dbtp=self.settings.true_peak_db
        )


@dataclass
class Picture:
    """One picture: the source's (``encoding`` None) or an encode every mux with it copies."""

    path: Path
    encoding: Encoding | None
    first: str  # the master it was made for ("" for the job's own)
    done: bool = False


@dataclass
class Sound:
    """A normalised narration (or mix) made at one target (and music levels): its folder, its
    loudness, what the manifest says of its music, and the AAC made as it was normalised."""

    folder: Path
    loud: dsp.Loudness
    music: MusicReport | None
    encoded: Path | None = None


@dataclass
class Shared:
    """What the masters of one job make once: pictures by what they are made of, sounds by
    their target (and music levels)."""

    pictures: dict[tuple[object, ...], Picture] = field(default_factory=dict)
    sounds: dict[tuple[object, ...], Sound] = field(default_factory=dict)


class NotYet(RuntimeError):
    """A stage read what an earlier stage makes, and that stage has not run."""


T = TypeVar("T")


def made(value: T | None, what: str) -> T:
    """What an earlier stage made; NotYet (saying ``what``) if it has not run."""
    if value is None:
        raise NotYet(what)
    return value


@dataclass
class Handoff:
    """What finishing a job is handed once every segment is fitted: its plan, the fitted
    segments and the workspace they are in, the folder for the artifacts, the video and the
    music (local paths), where to say the job's stage (``progress``) and ``check``, asked
    while ffmpeg runs (the job canceled?), which stops it by raising."""

    plan: JobPlan
    results: list[SegmentResult]
    work: Workspace
    outdir: Path
    video: Path | None = None
    progress: Progress = no_progress
    music: Path | None = None
    check: Check | None = None


@dataclass
class Finish(Handoff):
    """One finishing run over a job (or one of its masters): what it is handed, then what
    each stage adds (``placed``, ``cues``, ``mux``, ``picture``, ``sound``, ``manifest``)."""

    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[Notice] = field(default_factory=list)
    # None for a job without masters: nothing shared, its sound may be encoded as normalised.
    shared: Shared | None = None
    master: PlannedMaster | None = None  # the master this run finishes; None: the job
    masters: list[Finish] = field(default_factory=list)  # the job's masters' runs
    placed_: Placed | None = None
    cues: list[Cue] = field(default_factory=list)
    mux: MuxRequest | None = None
    picture: Picture | None = None
    sound_: Sound | None = None
    manifest_: Manifest | None = None

    @classmethod
    def of(cls, handoff: Handoff) -> Finish:
        """The job's own run over what finishing it is handed."""
        return cls(**{f.name: getattr(handoff, f.name) for f in fields(Handoff)})

    @property
    def placed(self) -> Placed:
        return made(self.placed_, "the segments are not placed yet (stage place)")

    @property
    def sound(self) -> Sound:
        return made(self.sound_, "the narration is not mixed yet (stage mix)")

    @property
    def manifest(self) -> Manifest:
        return made(self.manifest_, "the manifest is not written yet (stage manifest)")

    @property
    def name(self) -> str:
        return self.master.name if self.master is not None else ""

    def runs(self) -> list[Finish]:
        """The job's own run, then each master's."""
        return [self, *self.masters]

    def for_master(self, master: PlannedMaster, shared: Shared) -> Finish:
        """The run that finishes ``master``: the job's placed segments, its own plan (options,
        style, loudness) and folder masters/<name>/, its own warnings (merged into the job's)."""
        return Finish(
            plan=self.plan.for_master(master),
            results=self.results,
            work=self.work,
            outdir=self.outdir / "masters" / master.name,
            video=self.video,
            progress=self.progress,
            music=self.music,
            check=self.check,
            timings=self.timings,
            shared=shared,
            master=master,
            placed_=self.placed_,
        )

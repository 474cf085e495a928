"""A job's plan: what it was checked and resolved into at the door, once; every step runs
on it (made by service/pipeline/core.py, kept whole in the job record)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from service.domain.lexicons import UsedLexicon
from service.domain.notices import Notice
from service.domain.options import MasterLoudness
from service.domain.spec import JobSpec, RenderOptions
from service.domain.style import Style
from service.domain.takes import Take
from service.domain.video import VideoInfo


class JobPlan(BaseModel):
    """A job as checked at the door, once (``Planner.plan``): the spec with the options
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

    @property
    def complete(self) -> bool:
        """False for a plan the schema upgrade (service/domain/schemas.py) made of a record
        stored before plans were kept: its spec and options alone, no voice chains (a plan
        made at the door has one per segment)."""
        return bool(self.voices)

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

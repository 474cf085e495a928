"""The whole job once every segment is fitted: the named finishing stages
(pipeline/stages.py) run in order over one ``Finish``. The picture's re-encode (burn-in,
frozen last frame) needs only the subtitles, so it is started before the narration is mixed
and runs in ffmpeg meanwhile; the mux then copies it."""

from __future__ import annotations

from dataclasses import replace

from service.config import Settings
from service.domain.text import Segmenter
from service.pipeline.context import Finish, Handoff, Tools
from service.pipeline.manifest import Rendered
from service.pipeline.picture import pictures
from service.pipeline.stages import STAGES, Stage, Step, run_stages
from service.ports import Converter, Media
from service.ports.finishing import Timelines


class Finalizer:
    """Finishes a job from its fitted segments through ``stages`` (a sequence of named
    stages: a test may wrap one): the speech check's verdict, the timeline, the subtitles
    (line breaking with the word segmenter ``words``), loudness, the music, the mux through
    ``media``, the exports and the manifest."""

    def __init__(
        self,
        settings: Settings,
        media: Media,
        words: Segmenter | None,
        timelines: Timelines,
        converter: Converter | None = None,
    ) -> None:
        self.tools = Tools(settings, media, words, timelines, converter)
        self.stages: tuple[Stage, ...] = STAGES

    @property
    def words(self) -> Segmenter | None:
        return self.tools.words

    def finalize(self, handoff: Handoff) -> Rendered:
        """Every artifact into the handoff's ``outdir``; returns the manifest. Its ``check``
        is called every quarter second while ffmpeg encodes or muxes and may raise (the job
        was canceled): the ffmpegs are then killed at once."""
        run = Finish.of(handoff)
        try:
            run_stages(self.stages, self.tools, run)
        finally:
            for p in pictures(run):
                if p.encoding is not None:
                    p.encoding.cancel()  # on failure: no encoder left running
        return Rendered(run.manifest, run.timings)

    def replaced(self, name: str, step: Step) -> None:
        """Stage ``name`` doing ``step`` (a test's wrapper of it), its stage said as before."""
        if name not in {s.name for s in self.stages}:
            raise KeyError(name)
        self.stages = tuple(replace(s, run=step) if s.name == name else s for s in self.stages)

"""The Pipeline: checks a job at the door (``door``, a Planner: door.py), renders one segment
(``render_segment``, segment.py) and finishes the job (``finalize``, the named stages of
finalize.py), all through the ports. service/wiring.py gives it its adapters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path

from service.config import Settings
from service.domain.lexicons import UsedLexicon
from service.domain.spec import JobSpec
from service.domain.speech import Lexicon, Tools, parse_entries
from service.domain.speech.lexicon import parse_entry
from service.domain.text import Segmenter
from service.domain.voices import Catalog
from service.pipeline.context import Handoff
from service.pipeline.door import Planner
from service.pipeline.finalize import Finalizer
from service.pipeline.listen import Listener, render_checked
from service.pipeline.local import render_locally
from service.pipeline.manifest import Rendered
from service.pipeline.results import JobPlan, Progress, SegmentResult, no_progress
from service.pipeline.segment import SegmentRenderer
from service.pipeline.voicing import Voicing
from service.ports import Converter, Media, TtsEngine, Workspace
from service.ports.asr import Recogniser
from service.ports.finishing import LocalWork, Styles, Timelines


def _no_lexicon(language: str) -> Lexicon:
    return {}


class Pipeline:
    """A job's steps on this machine's adapters: ``door.plan`` at the door (a Planner),
    ``render_segment`` (a SegmentRenderer) per segment, ``finalize`` (a Finalizer) once, or
    ``render`` all in this process."""

    def __init__(
        self,
        settings: Settings,
        engines: dict[str, TtsEngine],
        media: Media,
        catalog: Catalog,
        words: Segmenter | None = None,
        speech: Callable[[], Tools] | None = None,
        lexicons: Callable[[str], Lexicon] = _no_lexicon,
        converter: Converter | None = None,
        recogniser: Recogniser | None = None,
        fold: Callable[[str], str] = str,
        *,
        styles: Styles,
        timelines: Timelines,
        scratch: LocalWork,
    ) -> None:
        """``words`` is the word segmenter (jieba's words and tags); ``speech`` makes the
        front-end's tools (called on first use: pypinyin loads slowly); ``lexicons`` gives
        the shipped lexicon of a language; ``converter`` makes Traditional tracks;
        ``recogniser`` and ``fold`` (Traditional -> Simplified) are the speech check's;
        ``styles`` resolves subtitle styles, ``timelines`` writes the editor exports and
        ``scratch`` is the local disk a job run in one process works on."""
        self.settings = settings
        self.engines = engines
        self.media = media
        self.catalog = catalog
        self.words = words
        self.make_speech = speech
        self.lexicons = lexicons
        self.listener = Listener(
            recogniser, lambda: self.speech, self.plan_lexicon, fold, settings.speech_check
        )
        self.segments = SegmentRenderer(
            settings,
            media,
            Voicing(engines, catalog),
            catalog,
            words,
            self.plan_lexicon,
            lambda: self.speech,
            self.listener.split_take,
        )
        self.door = Planner(settings, engines, media, catalog, styles)
        self.finalizer = Finalizer(settings, media, words, timelines, converter)
        self.scratch = scratch

    @cached_property
    def speech(self) -> Tools:
        if self.make_speech is None:
            raise RuntimeError("this pipeline was built without the speech front-end's tools")
        return self.make_speech()

    def lexicon(self, spec: JobSpec, dictionaries: Sequence[UsedLexicon] = ()) -> Lexicon:
        """The shipped lexicon of the job's language, the dictionaries it names over it (in
        order), and the job's own entries over those."""
        named = [parse_entry(w, v) for u in dictionaries for w, v in u.entries.items()]
        return {
            **self.lexicons(spec.language),
            **{e.word: e for e in named},
            **parse_entries(spec.pronunciations),
        }

    def plan_lexicon(self, plan: JobPlan) -> Lexicon:
        """A planned job's lexicon: its spec's, with the dictionary versions its plan keeps."""
        return self.lexicon(plan.spec, plan.lexicons)

    def render_segment(self, plan: JobPlan, index: int, work: Workspace) -> SegmentResult:
        """Synthesize segment ``index`` and fit it to its slot, to the sample; then the
        speech check (listen.py), when the job wants it."""
        return render_checked(self.segments.render, self.listener, self.catalog, plan, index, work)

    def finalize(self, handoff: Handoff) -> Rendered:
        """Timeline, subtitles, loudness, music and mux: every artifact into the handoff's
        ``outdir``; its ``check`` (the job canceled?) is asked while ffmpeg runs, and stops
        it by raising. A job with on_mismatch fail and flagged segments fails here, before
        any artifact."""
        return self.finalizer.finalize(handoff)

    # -- in one process ----------------------------------------------------------------------
    def render(
        self,
        plan: JobPlan,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = no_progress,
        parallel: int = 2,
        music: Path | None = None,
        takes: dict[str, Path] | None = None,
    ) -> Rendered:
        """The whole job in this process (the CLI). Artifacts appear in ``outdir`` only on
        success; ``takes`` are the plan's recorded takes (part name -> file)."""
        return render_locally(
            self, self.scratch, plan, outdir, video, progress, parallel, music, takes
        )

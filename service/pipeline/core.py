"""The Pipeline: checks a job at the door (``plan``), renders one segment
(``render_segment``, segment.py) and finishes the job (``finalize``, finalize.py), all
through the ports. service/wiring.py gives it its adapters."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from service.adapters.styles import job_style
from service.config import Settings
from service.domain.errors import InputError, MediaInputError
from service.domain.options import LoudnessTarget, MasterLoudness
from service.domain.spec import JobSpec, RenderOptions
from service.domain.speech import Lexicon, Tools, parse_entries
from service.domain.text import Segmenter
from service.domain.timeline import check_pace, check_timeline
from service.domain.units import ms_to_s
from service.domain.voices import Catalog
from service.pipeline.finalize import Finalizer
from service.pipeline.local import render_locally
from service.pipeline.manifest import Rendered
from service.pipeline.masters import plan_masters
from service.pipeline.results import JobPlan, Progress, SegmentResult, no_progress
from service.pipeline.segment import SegmentRenderer
from service.pipeline.voicing import Voicing
from service.ports import Check, Media, TtsEngine, Workspace


def _no_lexicon(language: str) -> Lexicon:
    return {}


class Pipeline:
    """A job's steps on this machine's adapters: ``plan`` at the door, ``render_segment``
    (a SegmentRenderer) per segment, ``finalize`` (a Finalizer) once, or ``render`` all in
    this process."""

    def __init__(
        self,
        settings: Settings,
        engines: dict[str, TtsEngine],
        media: Media,
        catalog: Catalog,
        words: Segmenter | None = None,
        speech: Callable[[], Tools] | None = None,
        lexicons: Callable[[str], Lexicon] = _no_lexicon,
    ) -> None:
        """``words`` is the word segmenter (jieba's words and tags); ``speech`` makes the
        front-end's tools (called on first use: pypinyin loads slowly); ``lexicons`` gives
        the shipped lexicon of a language."""
        self.settings = settings
        self.engines = engines
        self.media = media
        self.catalog = catalog
        self.words = words
        self.make_speech = speech
        self.lexicons = lexicons
        self.segments = SegmentRenderer(
            settings,
            media,
            Voicing(engines, catalog),
            catalog,
            words,
            self.lexicon,
            lambda: self.speech,
        )
        self.finalizer = Finalizer(settings, media, words)

    @cached_property
    def speech(self) -> Tools:
        if self.make_speech is None:
            raise RuntimeError("this pipeline was built without the speech front-end's tools")
        return self.make_speech()

    def lexicon(self, spec: JobSpec) -> Lexicon:
        """The shipped lexicon of the job's language with the job's own entries over it."""
        return {**self.lexicons(spec.language), **parse_entries(spec.pronunciations)}

    def render_segment(self, plan: JobPlan, index: int, work: Workspace) -> SegmentResult:
        """Synthesize segment ``index`` and fit it to its slot, to the sample."""
        return self.segments.render(plan, index, work)

    def finalize(
        self,
        plan: JobPlan,
        results: list[SegmentResult],
        work: Workspace,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = no_progress,
        music: Path | None = None,
        check: Check | None = None,
    ) -> Rendered:
        """Timeline, subtitles, loudness, music and mux: every artifact into ``outdir``;
        ``check`` (the job canceled?) is asked while ffmpeg runs, and stops it by raising."""
        return self.finalizer.finalize(plan, results, work, outdir, video, progress, music, check)

    # -- at the door -----------------------------------------------------------------------
    def plan(self, spec: JobSpec, options: RenderOptions, video: Path | None = None) -> JobPlan:
        """Everything that can be checked before any audio is made: voices, pace, video."""
        if options.preset is not None and options.preset_values is None:
            raise InputError(f"options preset {options.preset!r}: not resolved (Presets.resolve)")
        if options.audio_only and video is not None:
            raise InputError(
                "options audio_only: this job makes an audio master only (preset "
                f"{options.preset or 'none'}); submit it without a video"
            )
        spec = options.apply(spec)
        self.catalog.cast(spec, installed=self.engines)  # the job's own voice, even if unused
        voices = [c.chain for c in self.catalog.cast_all(spec, installed=self.engines)]
        style = job_style(self.settings, spec)  # an unknown style preset, at the door
        warnings = check_pace(spec)
        end = ms_to_s(check_timeline(spec, self.settings.max_timeline)[-1].end_ms)
        info = None
        if video is not None:
            info = self.media.probe(video)
            if end > info.duration + 0.05 and not options.extend_video:
                raise MediaInputError(
                    f"the narration runs {end:g} s but the video lasts {info.duration:g} s "
                    "(use --extend-video to freeze the last frame)",
                    video.name,
                )
        masters, notes = plan_masters(self.settings, spec, options, self.loudness)
        return JobPlan(
            spec=spec,
            options=options,
            voices=voices,
            style=style,
            video=info,
            warnings=warnings + notes,
            loudness=self.loudness(options),
            masters=masters,
        )

    def loudness(self, options: RenderOptions) -> MasterLoudness:
        """The master's loudness target: the options' figures over the settings'."""
        return (options.loudness or LoudnessTarget()).over(
            self.settings.target_lufs, self.settings.true_peak_db
        )

    def check_music(self, music: Path) -> None:
        """A music upload must be decodable audio: its first second is decoded at the door,
        so a bad file is a 422 naming the part, not a failed job later."""
        with tempfile.TemporaryDirectory(prefix="narrate-music-") as tmp:
            try:
                self.media.decode_audio(music, Path(tmp, "probe.f32"), 8000, 1.0)
            except MediaInputError as exc:
                raise MediaInputError(f"music: {exc}") from None

    # -- in one process ----------------------------------------------------------------------
    def render(
        self,
        plan: JobPlan,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = no_progress,
        parallel: int = 2,
        music: Path | None = None,
    ) -> Rendered:
        """The whole job in this process (the CLI). Artifacts appear in ``outdir`` only on
        success."""
        return render_locally(self, plan, outdir, video, progress, parallel, music)

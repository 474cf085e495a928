"""The door: a job checked once, before any audio is made, into its JobPlan. The presets
resolved (by the jobs layer) are applied, the voices cast, the Traditional track decided from
the voices' locales, the style resolved, the pace and timeline checked, the video probed, the
masters planned and the recorded takes decoded to their lengths."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from service.config import Settings
from service.domain.errors import InputError, MediaInputError, TakeError
from service.domain.lexicons import UsedLexicon
from service.domain.options import LoudnessTarget, MasterLoudness
from service.domain.spec import JobSpec, RenderOptions
from service.domain.speech import check_speakable
from service.domain.subtitles.hant import default_variant
from service.domain.takes import Take, plan_takes, take_limit
from service.domain.timeline import check_pace, check_timeline
from service.domain.units import ms_to_s
from service.domain.voices import Catalog
from service.pipeline.masters import plan_masters
from service.pipeline.results import JobPlan
from service.ports import Media, TtsEngine
from service.ports.finishing import Styles


@dataclass(frozen=True, slots=True)
class Planner:
    """Plans jobs at the door on this machine's voices (``engines``, ``catalog``), ffmpeg
    (``media``: the probe, the takes' and music's decode) and style presets (``styles``)."""

    settings: Settings
    engines: dict[str, TtsEngine]
    media: Media
    catalog: Catalog
    styles: Styles

    def plan(
        self,
        spec: JobSpec,
        options: RenderOptions,
        video: Path | None = None,
        takes: dict[str, Path] | None = None,
        lexicons: list[UsedLexicon] | None = None,
    ) -> JobPlan:
        """Everything that can be checked before any audio is made: voices, pace, video,
        the recorded takes; ``lexicons``: the dictionaries the options name, resolved
        (service/jobs/lexicons.py)."""
        if options.preset is not None and options.preset_values is None:
            raise InputError(f"options preset {options.preset!r}: not resolved (Presets.resolve)")
        if options.audio_only and video is not None:
            raise InputError(
                "options audio_only: this job makes an audio master only (preset "
                f"{options.preset or 'none'}); submit it without a video"
            )
        spec = spec.rendered_with(options)
        self.catalog.cast(spec, installed=self.engines)  # the job's own voice, even if unused
        voices = [c.chain for c in self.catalog.cast_all(spec, installed=self.engines)]
        asked = options
        options = self.traditional(spec, options, voices)
        style = self.styles.job_style(spec)  # an unknown style preset, at the door
        texts = [s.text for s in spec.segments]
        lexicons = [u.for_texts(texts) for u in lexicons or []]  # what this job can use
        warnings = check_pace(spec) + [n for u in lexicons for n in u.notices()]
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
        masters, notes = plan_masters(self.styles, spec, options, self.loudness)
        taken = self.check_takes([seg.seconds for seg in spec.segments], takes or {})
        check_speakable([s.text for s in spec.segments], {i for i, t in enumerate(taken) if t})
        return JobPlan(
            spec=spec,
            options=options,
            voices=voices,
            style=style,
            video=info,
            warnings=warnings + notes,
            loudness=self.loudness(options),
            traditional_by_voice=options.traditional != asked.traditional,
            takes=taken,
            masters=masters,
            lexicons=lexicons,
        )

    def traditional(
        self, spec: JobSpec, options: RenderOptions, voices: list[tuple[str, ...]]
    ) -> RenderOptions:
        """The Traditional track asked for, else the voices' (a zh job with zh-TW or zh-HK
        voices gets one); a Traditional burn-in needs one. Translations and Traditional
        tracks are for Chinese jobs."""
        given = [i for i, seg in enumerate(spec.segments) if seg.translation]
        if spec.language != "zh" and (given or spec.qualifier_translations):
            where = ("segments", given[0], "translation") if given else ("qualifier_translations",)
            raise InputError(
                f"{where[0]}: a translation is shown under Chinese narration; this job is "
                f"{spec.language!r}",
                loc=where,
            )
        if spec.language != "zh" and (options.hant or options.burn_in_script == "hant"):
            field = "traditional" if options.hant else "burn_in_script"
            raise InputError(
                f"options {field}: Traditional tracks are for zh jobs",
                loc=("options", field),
            )
        if options.traditional is None and spec.language == "zh":
            # The voices asked for (a zh-TW voice rendered offline by espeak still counts).
            asked = [spec.voice_of(i) or spec.voice or c[0] for i, c in enumerate(voices) if c]
            locales = [self.catalog.get(v).locale for v in asked]
            found = default_variant(spec.language, locales)
            if found is not None:
                options = options.model_copy(update={"traditional": found})
        if options.burn_in_script == "hant" and options.hant is None:
            raise InputError(
                "options burn_in_script: 'hant' shows the Traditional track; ask for one with "
                "traditional: tw or hk (or use a zh-TW/zh-HK voice without traditional: none)",
                loc=("options", "burn_in_script"),
            )
        return options

    def check_takes(self, seconds: list[float], takes: dict[str, Path]) -> list[Take | None]:
        """Each take names a segment of the script and is audio no longer than its segment
        can use (take_limit: decoded at the door, at a low rate, up to that length)."""
        plan_takes(len(seconds), dict.fromkeys(takes, 0))  # names first: no decoding for a typo
        lengths: dict[str, int] = {}
        with tempfile.TemporaryDirectory(prefix="narrate-take-") as tmp:
            for name, path in sorted(takes.items()):
                limit, allotted = take_limit(name, seconds, self.settings.max_take_seconds)
                raw = Path(tmp, "probe.f32")
                try:
                    self.media.decode_audio(path, raw, 8000, limit + 1)
                except MediaInputError as exc:
                    raise TakeError(f"{name}: not audio ({exc.message})", name) from None
                length = raw.stat().st_size / 4 / 8000
                if length > limit:
                    bound = f"for {allotted}: at most" if allotted else "over"
                    raise TakeError(f"{name}: too long ({bound} {limit:g} s)", name)
                lengths[name] = round(length * 1000)
        return plan_takes(len(seconds), lengths)

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

"""One job end to end through the ports: validate -> synthesize + fit each segment ->
timeline -> subtitles -> loudness -> mux. The CLI runs it in one process; the workers run
``render_segment`` per segment and ``finalize`` once, with the same code."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from service import audio as dsp
from service.config import Settings
from service.domain.errors import EngineError, MediaInputError
from service.domain.spec import FitOptions, JobSpec, RenderOptions, rate_multiplier
from service.domain.speech import Lexicon, SpokenText, Tools, front_end, parse_entries
from service.domain.subtitles import (
    WRITERS,
    Canvas,
    Cue,
    Layout,
    TimedPhrase,
    narration_cues,
    overlay_cues,
    screen_cues,
    settle,
    timed_phrases,
)
from service.domain.text import Segmenter, split_phrases
from service.domain.timeline import (
    Slot,
    TimedOverlay,
    check_pace,
    check_timeline,
    next_rate,
    place_overlays,
    place_segments,
    plan_residual,
    slot_ms,
    speech_target_ms,
)
from service.ports import Media, MuxRequest, Speech, TtsEngine, TtsRequest, VideoInfo
from service.styles import job_style
from service.voices import Casting, Catalog

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
SYNTH_SHARE = 0.7  # share of the progress bar that segment synthesis fills
MAX_RATE_PASSES = 3  # re-syntheses at a new native rate after the natural-rate pass


def _noop(fraction: float, stage: str) -> None:
    pass


@dataclass
class SegmentResult:
    """One fitted segment: its audio file (in the work dir) and everything the manifest and
    the subtitles need. Plain data, so a worker can store it as JSON."""

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
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    tts_calls: dict[str, int] = field(default_factory=dict)  # engine -> requests (cache misses)
    spoken_text: str = ""  # what the engine was given (the speech front-end's output)
    rewrites: int = 0  # spans of the text the front-end changed for that engine

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> SegmentResult:
        data = json.loads(text)
        data["phrases"] = [tuple(p) for p in data["phrases"]]
        return cls(**data)


@dataclass
class Rendered:
    """A finished job: the manifest (deterministic, written as manifest.json) and the
    wall-clock time each stage took (not in the manifest, so re-runs are byte-identical)."""

    manifest: dict[str, Any]
    timings: dict[str, float]


@dataclass
class Speaker:
    """One segment's text as each kind of engine is given it (made once per kind), and the
    display phrases mapped into that text: the phrase split espeak speaks by."""

    text: str
    language: str
    lexicon: Lexicon
    tools: Tools
    phrases: list[tuple[int, int]]  # display spans
    phrase_chars: int
    pitch: str = "+0Hz"
    volume: str = "+0%"
    made: dict[str, SpokenText] = field(default_factory=dict)

    def spoken(self, reader: str) -> SpokenText:
        if reader not in self.made:
            self.made[reader] = front_end(
                self.text, self.language, reader, self.lexicon, self.tools
            )
        return self.made[reader]

    def request(self, engine: TtsEngine | None, voice: str, rate: float) -> TtsRequest:
        spoken = self.spoken(getattr(engine, "reader", "text"))
        return TtsRequest(
            spoken.text,
            voice,
            self.language,
            rate,
            pitch=self.pitch,
            volume=self.volume,
            phrase_chars=self.phrase_chars,
            phrases=tuple(spoken.spans_to_spoken(self.phrases)),
        )


@dataclass
class Plan:
    """A validated job: the spec with options applied, who speaks it, and the video facts."""

    spec: JobSpec
    options: RenderOptions
    casting: Casting
    warnings: list[str]
    video: VideoInfo | None = None


class Pipeline:
    def __init__(
        self,
        settings: Settings,
        engines: dict[str, TtsEngine],
        media: Media,
        catalog: Catalog,
        segment: Segmenter | None = None,
        speech: Tools | None = None,
    ) -> None:
        self.settings = settings
        self.engines = engines
        self.media = media
        self.catalog = catalog
        self.segment = segment
        self._speech = speech

    @property
    def speech(self) -> Tools:
        """The speech front-end's word segmenter and pinyin (pypinyin; loaded on first use)."""
        if self._speech is None:
            from service.adapters.pinyin import speech_tools

            self._speech = speech_tools()
        return self._speech

    def lexicon(self, spec: JobSpec) -> Lexicon:
        """The shipped lexicon of the job's language with the job's own entries over it."""
        from service.adapters.pinyin import load_lexicon

        lexicons = self.settings.voices_file.parent / "lexicon"
        shipped = load_lexicon(lexicons / f"{spec.language}.tsv")
        return {**shipped, **parse_entries(spec.pronunciations)}

    # -- at the door -----------------------------------------------------------------------
    def plan(self, spec: JobSpec, options: RenderOptions, video: Path | None = None) -> Plan:
        """Everything that can be checked before any audio is made: voices, pace, video."""
        spec = options.apply(spec)
        casting = self.catalog.cast(spec)
        self.catalog.cast_all(spec)  # every segment's and speaker's voice, at the door
        job_style(self.settings, spec)  # an unknown style preset, at the door
        warnings = check_pace(spec)
        end = check_timeline(spec, self.settings.max_timeline)[-1].end_ms
        info = None
        if video is not None:
            info = self.media.probe(video)
            if end / 1000 > info.duration + 0.05 and not options.extend_video:
                raise MediaInputError(
                    f"the narration runs {end / 1000:g} s but the video lasts {info.duration:g} s "
                    "(use --extend-video to freeze the last frame)",
                    video.name,
                )
        return Plan(spec, options, casting, warnings, info)

    # -- one segment -----------------------------------------------------------------------
    def _speak(
        self,
        casting: Casting,
        speaker: Speaker,
        rate: float,
        warnings: list[str],
        calls: dict[str, int],
    ) -> tuple[str, str, Speech]:
        """Synthesize with the cast engine (given the text its kind reads); fall back to the
        offline voice where allowed. ``calls`` counts the requests that reached each engine
        (cache hits do not)."""
        engine = self.engines.get(casting.engine)
        if engine is not None:
            try:
                request = speaker.request(engine, casting.voice.id, rate)
                speech = engine.synthesize(request)
                calls[casting.engine] = calls.get(casting.engine, 0) + (not speech.cached)
                return casting.engine, casting.voice.id, speech
            except EngineError as exc:
                calls[casting.engine] = calls.get(casting.engine, 0) + 1
                if casting.fallback is None:
                    raise
                reason = str(exc)
        else:
            if casting.fallback is None:
                raise EngineError(casting.engine, "engine is not available on this machine")
            reason = f"{casting.engine} is not available"
        fb = casting.fallback
        warnings.append(f"{reason}; fell back to {fb.engine} voice {fb.id}")
        fallback = replace(casting, engine=fb.engine, voice=fb, fallback=None)
        return self._speak(fallback, speaker, rate, warnings, calls)

    def _native_fit(
        self,
        casting: Casting,
        speaker: Speaker,
        target_ms: int,
        fit: FitOptions,
        warnings: list[str],
        calls: dict[str, int],
        start: float = 1.0,
    ) -> tuple[str, str, int, Speech, float]:
        """Synthesize at the starting rate (the segment's own, else natural), then at the
        native rates that home in on ``target_ms``; the slowest is ``fit.max_slowdown`` of
        the start. Every pass uses the engine that answered the first; if a later pass
        fails there, the whole fit starts again on the fallback voice, so one segment's
        audio never mixes engines. Returns engine, voice, first-pass ms, speech and rate."""
        engine_name, voice, first = self._speak(casting, speaker, start, warnings, calls)
        pinned = Casting(engine_name, self.catalog.get(voice), None)
        engine = self.engines[engine_name]
        speech, rate = first, start
        tried = [(start, first.duration_ms)]
        if start != 1.0:
            fit = fit.model_copy(update={"max_slowdown": fit.max_slowdown * start})
        try:
            for _ in range(MAX_RATE_PASSES):
                wanted = next_rate(tried, target_ms, fit, engine.min_rate, engine.max_rate)
                if wanted is None:
                    break
                rate = wanted
                _, _, speech = self._speak(pinned, speaker, rate, warnings, calls)
                tried.append((rate, speech.duration_ms))
        except EngineError as exc:
            fb = casting.fallback
            if fb is None or fb.engine == engine_name:
                raise
            warnings.append(f"{exc}; fell back to {fb.engine} voice {fb.id}")
            offline = Casting(fb.engine, fb, None)
            return self._native_fit(offline, speaker, target_ms, fit, warnings, calls, start)
        return engine_name, voice, first.duration_ms, speech, rate

    def render_segment(self, plan: Plan, index: int, workdir: Path) -> SegmentResult:
        """Synthesize segment ``index`` and fit it to its slot, to the sample.

        Native rate first (a second synthesis at the rate that lands on the target), then a
        rubberband R3 stretch for what remains, then pad/trim to the exact slot length.
        """
        spec, fit = plan.spec, plan.spec.fit
        seg = spec.segments[index]
        slot = slot_ms(spec, index)
        warnings: list[str] = []
        t0 = time.perf_counter()
        speaker = Speaker(
            seg.text,
            spec.language,
            self.lexicon(spec),
            self.speech,
            split_phrases(seg.text, spec.line_chars, self.segment),
            spec.line_chars,
            seg.pitch or "+0Hz",
            seg.volume or "+0%",
        )
        calls: dict[str, int] = {}
        target_ms = speech_target_ms(slot, fit)
        engine_name, voice, natural, speech, rate = self._native_fit(
            self.catalog.cast(spec, segment=index),
            speaker,
            target_ms,
            fit,
            warnings,
            calls,
            rate_multiplier(seg.rate),
        )
        if engine_name != "edge" and (seg.pitch or seg.volume):
            warnings.append(
                f"segment {index + 1}: {engine_name} does not apply pitch/volume; spoken without"
            )
        spoken = speaker.spoken(getattr(self.engines[engine_name], "reader", "text"))
        warnings += [f"segment {index + 1}: {w}" for w in spoken.warnings]
        t1 = time.perf_counter()

        sr = self.settings.sample_rate
        audio = dsp.resample(speech.audio, speech.rate, sr)
        scale = 1.0
        residual = plan_residual(
            index,
            round(len(audio) * 1000 / sr),
            target_ms,
            fit,
            fit.on_overflow == "squeeze",
        )
        warnings += residual.warnings
        if residual.ratio != 1.0:
            target_n = dsp.samples(target_ms, sr)
            with tempfile.TemporaryDirectory(dir=workdir) as tmp:
                src, dst = Path(tmp, "in.wav"), Path(tmp, "out.wav")
                dsp.write_wav(src, audio, sr)
                self.media.stretch(src, dst, target_n / len(audio))
                stretched, _ = dsp.read_wav(dst)
            scale = len(stretched) / len(audio)
            audio = dsp.fit_length(stretched, target_n)
        speech_ms = round(len(audio) * 1000 / sr)
        audio = dsp.fit_length(audio, dsp.samples(slot, sr))
        name = f"segment-{index:03d}.wav"
        dsp.write_wav(workdir / name, audio, sr)
        # Engines report offsets into the spoken text; subtitles need the script's offsets.
        words = [
            (a, b, round(w.start_ms * scale), min(round(w.end_ms * scale), speech_ms))
            for w in speech.boundaries
            for a, b in [spoken.span_to_source(w.start, w.end)]
            if b > a
        ]
        phrases = [
            (p.start, p.end, p.start_ms, p.end_ms)
            for p in timed_phrases(seg.text, spec.line_chars, words, self.segment)
        ]
        t2 = time.perf_counter()
        return SegmentResult(
            index=index,
            slot_ms=slot,
            natural_ms=natural,
            speech_ms=speech_ms,
            native_rate=round(rate, 4),
            stretch_ratio=round(residual.ratio, 4),
            engine=engine_name,
            voice=voice,
            sample_rate=sr,
            audio=name,
            phrases=phrases,
            warnings=warnings,
            timings={"synthesize": round(t1 - t0, 4), "fit": round(t2 - t1, 4)},
            tts_calls=calls,
            spoken_text=spoken.text,
            rewrites=spoken.rewrites,
        )

    # -- the whole job ---------------------------------------------------------------------
    def finalize(
        self,
        plan: Plan,
        results: list[SegmentResult],
        workdir: Path,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = _noop,
        music: Path | None = None,
    ) -> Rendered:
        """Lay the fitted segments on the timeline, write subtitles, normalize loudness,
        lay the music under the voice when given (mix.wav) and mux; every artifact goes
        into ``outdir``. Returns the manifest."""
        spec = plan.spec
        timings: dict[str, float] = {
            "synthesize": round(sum(r.timings.get("synthesize", 0) for r in results), 4),
            "fit": round(sum(r.timings.get("fit", 0) for r in results), 4),
        }
        sr = self.settings.sample_rate
        results = sorted(results, key=lambda r: r.index)
        slots = place_segments(spec, [r.slot_ms for r in results])
        overlays = place_overlays(spec, slots)

        t = time.perf_counter()
        layout = Layout.for_spec(spec, self.segment)
        style = job_style(self.settings, spec)
        cues: list[Cue] = []
        timed = [
            [TimedPhrase(a, b, slot.start_ms + s, slot.start_ms + e) for a, b, s, e in res.phrases]
            for res, slot in zip(results, slots, strict=True)
        ]
        for k, (seg, phrases) in enumerate(zip(spec.segments, timed, strict=True)):
            following = next((p[0].start_ms for p in timed[k + 1 :] if p), None)
            cues += narration_cues(seg.text, phrases, layout, following)
        cues += overlay_cues([(o.text, o.start_ms, o.end_ms) for o in overlays], layout)
        show_screen = plan.options.shows_screen_text(spec)
        if show_screen:
            cues += screen_cues(
                [
                    (s.name, s.screen_text, round(s.start * 1000), round(s.end * 1000))
                    for s in spec.shots
                ],
                layout,
            )
        cues = settle(cues, layout)
        canvas = Canvas(
            plan.video.width if plan.video else 1080,
            plan.video.height if plan.video else 1920,
            self.settings.font_name,
            spec.language,
            style,
        )
        for ext, writer in WRITERS.items():
            (outdir / f"subtitles.{ext}").write_text(writer(cues, canvas), encoding="utf-8")
        timings["subtitles"] = round(time.perf_counter() - t, 4)
        progress(SYNTH_SHARE + 0.05, "subtitles")

        warnings = list(plan.warnings) + [w for r in results for w in r.warnings]
        mux = self._mux_request(plan, video, outdir, slots, results, overlays, warnings)
        # The picture needs only the subtitles: its re-encode (burn-in, frozen last frame)
        # runs in ffmpeg while the narration is mixed and normalised here; the mux then
        # stream-copies it.
        picture = workdir / "picture.mp4"
        encoding = self.media.encode_video(mux, picture) if mux is not None else None
        try:
            t = time.perf_counter()
            total_ms = max([s.end_ms for s in slots] + [o.end_ms for o in overlays])
            loud = self._mix_narration(results, slots, total_ms, workdir, outdir / "narration.wav")
            if music is not None:
                music_info = self._mix_music(plan, music, slots, results, total_ms, workdir, outdir)
                if mux is not None:
                    mux = replace(mux, narration=outdir / "mix.wav")
            timings["loudness"] = round(time.perf_counter() - t, 4)
            progress(SYNTH_SHARE + 0.1, "loudness")
            if mux is not None:
                t = time.perf_counter()
                if encoding is not None:
                    encoding.wait(self.settings.ffmpeg_timeout)
                    mux = replace(mux, encoded_video=picture)
                self.media.mux(mux)
                timings["mux"] = round(time.perf_counter() - t, 4)
        finally:
            if encoding is not None:
                encoding.cancel()  # on failure: no encoder left running
        progress(1.0, "done")

        manifest = {
            "title": spec.title,
            "language": spec.language,
            "duration": total_ms / 1000,
            "sample_rate": sr,
            "segments": [
                {
                    "index": r.index + 1,
                    "label": seg.label,
                    "text": seg.text,
                    "spoken_text": r.spoken_text,
                    "start": slot.start_ms / 1000,
                    "end": slot.end_ms / 1000,
                    "allotted": seg.seconds,
                    "natural_duration": r.natural_ms / 1000,
                    "speech_duration": r.speech_ms / 1000,
                    "requested_rate": seg.rate,
                    "native_rate": r.native_rate,
                    "pitch": seg.pitch,
                    "volume": seg.volume,
                    "stretch_ratio": r.stretch_ratio,
                    "engine": r.engine,
                    "voice": r.voice,
                    "speaker": seg.speaker,
                }
                for seg, r, slot in zip(spec.segments, results, slots, strict=True)
            ],
            "overlays": [
                {"text": o.text, "start": o.start_ms / 1000, "end": o.end_ms / 1000}
                for o in overlays
            ],
            "cues": [
                {
                    "start": c.start_ms / 1000,
                    "end": c.end_ms / 1000,
                    "text": c.text,
                    "layer": c.layer,
                }
                for c in cues
            ],
            "style": style.applied,
            "screen_text": show_screen,
            "qualifier_display": spec.qualifier_display,
            "loudness": {
                "integrated_lufs": loud.integrated_lufs,
                "true_peak_dbtp": loud.true_peak_dbtp,
            },
            "warnings": warnings,
        }
        if music is not None:
            manifest["music"] = music_info
        (outdir / "manifest.json").write_text(
            json.dumps(manifest, ensure_ascii=False, indent=2), encoding="utf-8"
        )
        return Rendered(manifest, timings)

    def _mux_request(
        self,
        plan: Plan,
        video: Path | None,
        outdir: Path,
        slots: list[Slot],
        results: list[SegmentResult],
        overlays: list[TimedOverlay],
        warnings: list[str],
    ) -> MuxRequest | None:
        """What the video file is made of; None without a video. Warns of overlays that
        start after the video (and the narration) end."""
        if video is None or plan.video is None:
            return None
        narration_end = slots[-1].end_ms / 1000
        late = [o for o in overlays if o.start_ms / 1000 >= max(plan.video.duration, narration_end)]
        if late:
            warnings.append(f"{len(late)} overlay(s) start after the video ends and are not shown")
        return MuxRequest(
            video=video,
            narration=outdir / "narration.wav",
            subtitles_srt=outdir / "subtitles.srt",
            subtitles_ass=outdir / "subtitles.ass",
            output=outdir / "video.mp4",
            info=plan.video,
            language=plan.spec.language,
            burn_in=plan.options.burn_in,
            original_audio=plan.options.original_audio,
            extend_to=narration_end if narration_end > plan.video.duration else None,
            duck_intervals=tuple(
                ((s.start_ms) / 1000, (s.start_ms + r.speech_ms) / 1000)
                for s, r in zip(slots, results, strict=True)
            ),
        )

    def _mix_narration(
        self,
        results: list[SegmentResult],
        slots: list[Slot],
        total_ms: int,
        workdir: Path,
        path: Path,
    ) -> dsp.Loudness:
        """Lay the fitted segments on a silent track of ``total_ms`` and normalize it into
        ``path``, block by block: memory does not grow with the timeline."""
        sr = self.settings.sample_rate
        track = dsp.MixSource(
            [
                (workdir / r.audio, dsp.samples(s.start_ms, sr))
                for r, s in zip(results, slots, strict=True)
            ],
            dsp.samples(total_ms, sr),
            sr,
        )
        return dsp.normalize_to_wav(
            track, sr, path, self.settings.target_lufs, self.settings.true_peak_db
        )

    def _mix_music(
        self,
        plan: Plan,
        music: Path,
        slots: list[Slot],
        results: list[SegmentResult],
        total_ms: int,
        workdir: Path,
        outdir: Path,
    ) -> dict[str, Any]:
        """The narration with the music under it, ducked under speech, into mix.wav at the
        loudness target and true-peak ceiling. Returns what the manifest says of it."""
        from service import music as bed

        sr = self.settings.sample_rate
        length_ms = max(total_ms, round(plan.video.duration * 1000) if plan.video else 0)
        raw = workdir / "music.f32"
        self.media.decode_audio(music, raw, sr, min(length_ms / 1000, bed.MAX_MUSIC_S))
        source = bed.RawSource(raw)
        music_lufs = bed.loudness(source, sr)
        gain = bed.bed_gain(music_lufs, self.settings.target_lufs, plan.options.music_level)
        speech = [
            (dsp.samples(s.start_ms, sr), dsp.samples(s.start_ms + r.speech_ms, sr))
            for s, r in zip(slots, results, strict=True)
        ]
        length = dsp.samples(length_ms, sr)
        voice = dsp.MixSource([(outdir / "narration.wav", 0)], length, sr)
        under = bed.DuckedBed(source, length, sr, gain, speech, plan.options.music_duck)
        loud = dsp.normalize_to_wav(
            bed.SumSource(voice, under),
            sr,
            outdir / "mix.wav",
            self.settings.target_lufs,
            self.settings.true_peak_db,
        )
        return {
            "file": music.name,
            "music_lufs": round(music_lufs, 2),
            "level_db": plan.options.music_level,
            "duck_db": plan.options.music_duck,
            "duration": length_ms / 1000,
            "loudness": {
                "integrated_lufs": loud.integrated_lufs,
                "true_peak_dbtp": loud.true_peak_dbtp,
            },
        }

    def render(
        self,
        plan: Plan,
        outdir: Path,
        video: Path | None = None,
        progress: Progress = _noop,
        parallel: int = 2,
        music: Path | None = None,
    ) -> Rendered:
        """The whole job in this process. Artifacts appear in ``outdir`` only on success."""
        outdir.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{outdir.name}.", dir=outdir.parent) as tmp:
            work, staged = Path(tmp, "work"), Path(tmp, "out")
            work.mkdir()
            staged.mkdir()
            local_video = None
            if video is not None:
                local_video = work / "source.video"  # ffmpeg sees only a name we generated
                try:
                    local_video.hardlink_to(video.resolve())
                except OSError:
                    shutil.copyfile(video, local_video)
            n = len(plan.spec.segments)
            done = 0

            def one(i: int) -> SegmentResult:
                nonlocal done
                res = self.render_segment(plan, i, work)
                done += 1
                progress(SYNTH_SHARE * done / n, f"segment {done}/{n}")
                return res

            progress(0.0, "synthesize")
            with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
                results = list(pool.map(one, range(n)))
            rendered = self.finalize(
                plan, results, work, staged, local_video, progress, music=music
            )
            outdir.mkdir(parents=True, exist_ok=True)
            for name in ARTIFACTS:
                if (staged / name).exists():
                    (staged / name).replace(outdir / name)
        return rendered


def default_pipeline(settings: Settings) -> Pipeline:
    """The pipeline wired to this machine's adapters."""
    from service.adapters.media import FfmpegMedia
    from service.adapters.segmenter import tagged_words
    from service.adapters.tts import available_engines
    from service.voices import load_catalog

    return Pipeline(
        settings,
        available_engines(settings),
        FfmpegMedia(settings),
        load_catalog(settings.voices_file),
        tagged_words,
    )  # the speech front-end's tools load on first use

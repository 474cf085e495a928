"""One segment: synthesize, fit to its slot to the sample, and time its phrases. The audio is
written into the job's workspace (a port: local files for the tools, kept by the storage)."""

from __future__ import annotations

import bisect
import json
import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from service import audio as dsp
from service.config import Settings
from service.domain.fields import rate_multiplier
from service.domain.notices import Notice, warning
from service.domain.spec import FitOptions
from service.domain.speech import Lexicon, SpokenText, Tools
from service.domain.subtitles import TimedPhrase, timed_phrases
from service.domain.takes import Take
from service.domain.text import Segmenter, split_phrases
from service.domain.timeline import plan_residual, slot_ms, speech_target_ms
from service.domain.units import ms_to_samples, samples_to_ms
from service.domain.voices import Catalog
from service.pipeline.results import JobPlan, SegmentResult
from service.pipeline.takes import (
    REFERENCE_ENGINE,
    Aligned,
    Matcher,
    TakeShare,
    carried,
    levelled,
    matched_split,
    mismatch,
    script_reference,
    split,
    trimmed,
)
from service.pipeline.voicing import SpokenSegment, Voicing
from service.ports import Boundary, Media, Speech, Workspace


@dataclass
class Fitted:
    """A segment's audio fitted to its slot: ``scale`` maps the engine's times onto it."""

    audio: dsp.Audio
    scale: float
    speech_ms: int
    ratio: float
    warnings: list[Notice]


def source_words(
    boundaries: list[Boundary], spoken: SpokenText, scale: float, speech_ms: int
) -> list[tuple[int, int, int, int]]:
    """Engine boundaries (spoken offsets) as (source start, end, start ms, end ms). A boundary
    inside a piece the front-end rewrote as a whole (长上下文 said as four syllables, each
    timed by the neural voice) stands for that whole piece, and boundaries of one piece merge:
    a cue starts on the piece's first syllable and ends on its last."""
    words: list[tuple[int, int, int, int]] = []
    starts = [p.spk_start for p in spoken.pieces]
    for w in boundaries:
        a, b = spoken.span_to_source(w.start, w.end)
        if b <= a and spoken.pieces:
            piece = spoken.pieces[max(0, bisect.bisect_right(starts, w.start) - 1)]
            a, b = piece.src_start, piece.src_end
        if b <= a:
            continue
        start, end = round(w.start_ms * scale), min(round(w.end_ms * scale), speech_ms)
        if words and words[-1][:2] == (a, b):
            words[-1] = (a, b, min(words[-1][2], start), max(words[-1][3], end))
        else:
            words.append((a, b, start, end))
    return words


def segment_audio_name(index: int) -> str:
    return f"segment-{index:03d}.wav"


@dataclass(slots=True)
class SegmentRenderer:
    """Renders one segment of a plan: synthesis through ``voicing``, the fit through
    ``media`` (rubberband), phrase timing with the word segmenter ``words``. ``lexicon``
    gives a job's pronunciations; ``tools`` the speech front-end's (made on first use:
    pypinyin loads slowly)."""

    settings: Settings
    media: Media
    voicing: Voicing
    catalog: Catalog
    words: Segmenter | None
    lexicon: Callable[[JobPlan], Lexicon]
    tools: Callable[[], Tools]
    matcher: Matcher | None = None  # whole takes: listen.Listener.split_take

    def spoken_segment(self, plan: JobPlan, index: int) -> SpokenSegment:
        spec = plan.spec
        seg = spec.segments[index]
        return SpokenSegment(
            seg.text,
            spec.language,
            self.lexicon(plan),
            self.tools(),
            split_phrases(seg.text, spec.line_chars, self.words, keep=seg.emphasis_spans),
            spec.line_chars,
            seg.pitch or "+0Hz",
            seg.volume or "+0%",
            index + 1,
        )

    def render(self, plan: JobPlan, index: int, work: Workspace) -> SegmentResult:
        """Synthesize segment ``index`` and fit it to its slot, to the sample.

        Native rate first (a second synthesis at the rate that lands on the target), then a
        rubberband R3 stretch for what remains, then pad/trim to the exact slot length.
        """
        if (take := plan.take(index)) is not None:
            return self.render_take(plan, index, take, work)
        spec, fit = plan.spec, plan.spec.fit
        slot = slot_ms(spec, index)
        warnings: list[Notice] = []
        calls: dict[str, int] = {}
        t0 = time.perf_counter()
        speaker = self.spoken_segment(plan, index)
        target_ms = speech_target_ms(slot, fit)
        seg = spec.segments[index]
        voiced = self.voicing.native_fit(
            self.catalog.casting(plan.voices[index]),  # cast at the door
            speaker,
            target_ms,
            fit,
            warnings,
            calls,
            rate_multiplier(seg.rate),
        )
        if voiced.engine != "edge" and (seg.pitch or seg.volume):
            said = (
                f"segment {index + 1}: {voiced.engine} does not apply pitch/volume; spoken without"
            )
            warnings.append(warning("voice.pitch_ignored", said, index + 1))
        spoken = speaker.spoken(getattr(self.voicing.engines[voiced.engine], "reader", "text"))
        number = index + 1
        warnings += [
            warning("text.unspoken", f"segment {number}: {w}", number) for w in spoken.warnings
        ]
        t1 = time.perf_counter()
        fitted = self._fit(voiced.speech, index, slot, target_ms, fit, work)
        name = self._keep(work, index, fitted.audio)
        phrases, words = self._timed(plan, index, voiced.speech, spoken, fitted)
        t2 = time.perf_counter()
        return SegmentResult(
            index=index,
            slot_ms=slot,
            natural_ms=voiced.natural_ms,
            speech_ms=fitted.speech_ms,
            native_rate=round(voiced.rate, 4),
            stretch_ratio=round(fitted.ratio, 4),
            engine=voiced.engine,
            voice=voiced.voice,
            sample_rate=self.settings.sample_rate,
            audio=name,
            phrases=phrases,
            words=words,
            warnings=warnings + fitted.warnings,
            timings={"synthesize": round(t1 - t0, 4), "fit": round(t2 - t1, 4)},
            tts_calls=calls,
            spoken_text=spoken.text,
            rewrites=spoken.rewrites,
        )

    # -- a recorded take --------------------------------------------------------------------
    def render_take(self, plan: JobPlan, index: int, take: Take, work: Workspace) -> SegmentResult:
        """The segment's recorded take, its phrases found by aligning it with the text read
        by the offline engine, fitted to the slot as speech is (no native rate: a stretch
        within bounds, else the overflow policy)."""
        spec, fit, number = plan.spec, plan.spec.fit, index + 1
        slot = slot_ms(spec, index)
        t0 = time.perf_counter()
        speaker = self.spoken_segment(plan, index)
        engine = self.voicing.engines[REFERENCE_ENGINE]
        spoken = speaker.spoken(getattr(engine, "reader", "text"))
        calls: dict[str, int] = {}
        if take.whole:
            aligned = self._share_of_whole(plan, index, take, work, calls)
        else:
            reference = self._reference(plan, speaker, calls)
            aligned = carried(
                reference, self._take_audio(work, take.input), self.settings.sample_rate
            )
        warned = mismatch(number, aligned.cost, aligned.round_trip_ms)
        warnings = [] if warned is None else [warned]
        t1 = time.perf_counter()
        fitted = self._fit(aligned.speech, index, slot, speech_target_ms(slot, fit), fit, work)
        name = self._keep(work, index, fitted.audio)
        phrases, words = self._timed(plan, index, aligned.speech, spoken, fitted)
        return SegmentResult(
            index=index,
            slot_ms=slot,
            natural_ms=aligned.speech.duration_ms,
            speech_ms=fitted.speech_ms,
            native_rate=1.0,
            stretch_ratio=round(fitted.ratio, 4),
            engine="take",
            voice=take.input,
            sample_rate=self.settings.sample_rate,
            audio=name,
            phrases=phrases,
            words=words,  # the take's, carried by the alignment
            warnings=warnings + fitted.warnings,
            timings={"align": round(t1 - t0, 4), "fit": round(time.perf_counter() - t1, 4)},
            tts_calls=calls,
            spoken_text=spoken.text,
            take=take.input,
            alignment_cost=round(aligned.cost, 4) if math.isfinite(aligned.cost) else None,
        )

    def _reference(self, plan: JobPlan, speaker: SpokenSegment, calls: dict[str, int]) -> Speech:
        """The segment's text read by the offline engine at its natural rate."""
        engine = self.voicing.engines[REFERENCE_ENGINE]
        voice = self.catalog.default(REFERENCE_ENGINE, plan.spec.language).id
        speech = engine.synthesize(speaker.request(engine, voice, 1.0))
        calls[REFERENCE_ENGINE] = calls.get(REFERENCE_ENGINE, 0) + (not speech.cached)
        return speech

    def _take_audio(self, work: Workspace, kind: str) -> dsp.Audio:
        sr = self.settings.sample_rate
        with tempfile.TemporaryDirectory(dir=work.scratch()) as tmp:
            raw = Path(tmp, "take.f32")
            self.media.decode_audio(work.input(kind), raw, sr, self.settings.max_take_seconds + 1)
            return np.fromfile(raw, dtype=np.float32)

    def _share_of_whole(
        self, plan: JobPlan, index: int, take: Take, work: Workspace, calls: dict[str, int]
    ) -> Aligned:
        """Segment ``index``'s part of a whole-script take. The first segment step to get
        here aligns the whole take with every segment's reference and keeps the split (a
        work file); the others read it. Two at once write the same bytes."""
        name = "take-split.json"
        try:
            shares: list[TakeShare] = json.loads(work.fetch(name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            shares = self._split_whole(plan, take, work, calls)
            path = work.local(name)
            with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False
            ) as tmp:  # its own name: two steps here at once each write a whole file
                tmp.write(json.dumps(shares))
            Path(tmp.name).replace(path)
            work.keep(name)
        share = shares[index]
        sr = self.settings.sample_rate
        audio = levelled(trimmed(self._take_audio(work, take.input)))
        a, b = (ms_to_samples(t, sr) for t in share["span"])
        bounds = [Boundary(*row) for row in share["boundaries"]]
        return Aligned(Speech(audio[a:b], sr, bounds), float(share["cost"]), float(share["trip"]))

    def _split_whole(
        self, plan: JobPlan, take: Take, work: Workspace, calls: dict[str, int]
    ) -> list[TakeShare]:
        """A whole-script take split by script matching (the speech check's recogniser),
        else by the whole script's reference carried onto it by DTW."""
        segments = range(len(plan.spec.segments))
        parts = [self._reference(plan, self.spoken_segment(plan, i), calls) for i in segments]
        sr, audio = self.settings.sample_rate, self._take_audio(work, take.input)
        if self.matcher and (shares := self.matcher(plan, trimmed(audio), sr)) is not None:
            return matched_split(shares, trimmed(audio), sr, parts)
        reference, firsts = script_reference(parts)
        return split(carried(reference, audio, sr), reference, firsts)

    def _fit(
        self,
        speech: Speech,
        index: int,
        slot: int,
        target_ms: int,
        fit: FitOptions,
        work: Workspace,
    ) -> Fitted:
        """Resample, stretch what the native rate left over, then pad/trim to the slot."""
        sr = self.settings.sample_rate
        audio = dsp.resample(speech.audio, speech.rate, sr)
        residual = plan_residual(
            index, samples_to_ms(len(audio), sr), target_ms, fit, fit.on_overflow == "squeeze"
        )
        scale = 1.0
        if residual.ratio != 1.0:
            target_n = ms_to_samples(target_ms, sr)
            with tempfile.TemporaryDirectory(dir=work.scratch()) as tmp:
                src, dst = Path(tmp, "in.wav"), Path(tmp, "out.wav")
                dsp.write_wav(src, audio, sr)
                self.media.stretch(src, dst, target_n / len(audio))
                stretched, _ = dsp.read_wav(dst)
            scale = len(stretched) / len(audio)
            audio = dsp.fit_length(stretched, target_n)
        speech_ms = samples_to_ms(len(audio), sr)
        audio = dsp.fit_length(audio, ms_to_samples(slot, sr))
        return Fitted(audio, scale, speech_ms, residual.ratio, residual.warnings)

    def _keep(self, work: Workspace, index: int, audio: dsp.Audio) -> str:
        """The fitted audio written into the workspace and kept: its name there."""
        name = segment_audio_name(index)
        dsp.write_wav(work.local(name), audio, self.settings.sample_rate)
        work.keep(name)
        return name

    def _timed(
        self, plan: JobPlan, index: int, speech: Speech, spoken: SpokenText, fitted: Fitted
    ) -> tuple[list[TimedPhrase], list[TimedPhrase]]:
        """The phrases, and the engine's boundaries (what word-by-word captions are timed
        from): engines report offsets into the spoken text; subtitles need the script's
        offsets, and the times the fit moved them to."""
        seg, spec = plan.spec.segments[index], plan.spec
        words = source_words(speech.boundaries, spoken, fitted.scale, fitted.speech_ms)
        phrases = timed_phrases(seg.text, spec.line_chars, words, self.words, seg.emphasis_spans)
        return phrases, [TimedPhrase(*w) for w in words]

"""Speech on request (``POST /v1/audio/speech``): a short text spoken now, sentence by
sentence, through the same planning, front-end (readings, lexicon), casting, fallback and
TTS cache a job's segment goes through (the pipeline's), in the API process.

Why here and not on the workers: a speech request is answered while the client waits (the
first byte within a second is the aim), and a queue behind long renders cannot promise that;
the input is bounded (NARRATE_SPEECH_MAX_CHARS) so one request is seconds of CPU, and the
requests synthesizing at once are bounded (NARRATE_SPEECH_CONCURRENCY), as the voice samples
already are spoken here. A request counts as one submission against the tenant's per-minute
limit, and a tenant may have no more requests speaking at once than its running-jobs limit."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np
from pydantic import ValidationError

from service.audio.arrays import resample
from service.domain.errors import InputError, NarrateError, QuotaExceeded
from service.domain.lexicons import UsedLexicon
from service.domain.notices import Notice
from service.domain.openai_speech import OPENAI_VOICES, SpeechAsk, SpeechError, TimedWord
from service.domain.openai_speech import sentences as split_sentences
from service.domain.spec import RenderOptions, spec_from_data
from service.domain.text.tokens import detect_language, pause_after
from service.jobs.lexicons import Lexicons
from service.jobs.quotas import QuotaGate
from service.pipeline import Pipeline
from service.pipeline.segment import source_words

MIN_PAUSE_MS = 120  # between two sentences that end without a mark (a cut long sentence)


@dataclass
class Said:
    """One sentence's audio (float32 at the service's rate, its pause after it included) and
    its words, in the input's character offsets, timed from the sentence's start."""

    engine: str
    voice: str
    cached: bool
    audio: np.ndarray
    words: list[TimedWord] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Cast:
    engine: str  # the render option: an engine, or auto (edge with its fallback)
    voice: str | None  # a catalog id; None: the engine's default for the language
    language: str
    options: RenderOptions = field(default_factory=RenderOptions)
    used: tuple[UsedLexicon, ...] = ()  # the tenant's dictionaries, at their versions


class SpeechDesk:
    """Admits a tenant's request (quotas, a slot) and speaks its sentences."""

    def __init__(
        self,
        pipeline: Pipeline,
        quotas: QuotaGate | None,
        slots: int,
        wait: float,
        lexicons: Lexicons | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.lexicons = lexicons or Lexicons(None)
        self.quotas = quotas
        self.capacity = slots
        self.slots = threading.BoundedSemaphore(slots)
        self.wait = wait  # seconds a request waits for a free slot before a 429
        self.speaking: dict[str, int] = {}
        self.lock = threading.Lock()

    @property
    def rate(self) -> int:
        return self.pipeline.settings.sample_rate

    def admit(self, tenant: str) -> None:
        """Count the request against the tenant's per-minute limit, or raise SpeechError."""
        if self.quotas is None:
            return
        try:
            self.quotas.admit_request(tenant)
        except QuotaExceeded as exc:
            raise SpeechError(
                str(exc), None, "rate_limit_exceeded", 429, "requests", exc.retry_after
            ) from None

    @contextmanager
    def slot(self, tenant: str) -> Iterator[None]:
        """Hold one of the synthesis slots (and one of the tenant's) while speaking."""
        most = self.quotas.limits(tenant)["max_running"] if self.quotas else self.capacity
        with self.lock:
            if self.speaking.get(tenant, 0) >= most:
                raise SpeechError(
                    f"tenant {tenant} already has {most} speech requests speaking, its limit "
                    "(NARRATE_MAX_RUNNING_JOBS or the key's --max-running); try again when one "
                    "has finished",
                    None,
                    "rate_limit_exceeded",
                    429,
                    "requests",
                )
            self.speaking[tenant] = self.speaking.get(tenant, 0) + 1
        try:
            if not self.slots.acquire(timeout=self.wait):
                raise SpeechError(
                    f"every synthesis slot (NARRATE_SPEECH_CONCURRENCY) stayed busy for "
                    f"{self.wait:g} s; try again shortly",
                    None,
                    "server_busy",
                    429,
                    "requests",
                )
            try:
                yield
            finally:
                self.slots.release()
        finally:
            with self.lock:
                self.speaking[tenant] -= 1

    def prepare(self, tenant: str, ask: SpeechAsk) -> Cast:
        """The cast, with the render options a job of it would have: the tenant's
        dictionaries the request names (``lexicons``), each at its version."""
        cast = self.cast(ask)
        try:
            options = RenderOptions.model_validate(
                {"engine": cast.engine, "lexicons": list(ask.lexicons)}
            )
            options, used = self.lexicons.resolve(tenant, options)
        except ValidationError as exc:
            raise SpeechError(
                f"'lexicons': {exc.errors()[0]['msg']}", "lexicons", "invalid_value"
            ) from None
        except InputError as exc:
            raise SpeechError(str(exc), "lexicons", "lexicon_not_found") from None
        return replace(cast, options=options, used=tuple(used))

    def cast(self, ask: SpeechAsk) -> Cast:
        """The engine option, voice and language: one of OpenAI's voice names is the chosen
        engine's default voice for the input's language; a catalog voice speaks its own
        language, on its own engine (model auto) or on the one named, which must be its."""
        if ask.voice in OPENAI_VOICES:
            return Cast(ask.engine, None, detect_language(ask.text))
        found = {v.id: v for v in self.pipeline.catalog.voices}.get(ask.voice)
        if found is None:
            raise SpeechError(
                f"voice {ask.voice!r} is neither a catalog voice (GET /v1/voices lists them) "
                f"nor one of OpenAI's: {', '.join(sorted(OPENAI_VOICES))}",
                "voice",
                "voice_not_found",
            )
        language = found.language if found.language in ("zh", "en") else detect_language(ask.text)
        if ask.engine == "auto":
            return Cast("auto" if found.engine == "edge" else found.engine, found.id, language)
        if ask.engine != found.engine:
            raise SpeechError(
                f"voice {found.id!r} is a {found.engine} voice; model {ask.model!r} speaks "
                f"{ask.engine} voices (use model {found.engine!r} or 'auto')",
                "voice",
                "voice_model_mismatch",
            )
        return Cast(found.engine, found.id, language)

    def speak(self, ask: SpeechAsk, cast: Cast) -> Iterator[Said]:
        """Each sentence of the input, spoken in turn (a generator: the caller encodes and
        sends one while the next is synthesized)."""
        spans = split_sentences(ask.text)
        if not spans:
            raise SpeechError("'input' has nothing to say", "input", "invalid_value")
        for i, (a, b) in enumerate(spans):
            raw = ask.text[a:b]
            lead = len(raw) - len(raw.lstrip())
            text = raw.strip()
            said = self._sentence(text, a + lead, ask.speed, cast)
            pause = pause_after(text) or MIN_PAUSE_MS
            if i < len(spans) - 1:
                silence = np.zeros(self.rate * pause // 1000, np.float32)
                said.audio = np.concatenate([said.audio, silence])
            yield said

    def _sentence(self, text: str, offset: int, speed: float, cast: Cast) -> Said:
        segment: dict[str, object] = {"text": text, "seconds": 60}
        if cast.voice:
            segment["voice"] = cast.voice
        try:
            spec = spec_from_data({"language": cast.language, "segments": [segment]})
            plan = self.pipeline.door.plan(spec, cast.options, lexicons=list(cast.used))
        except InputError as exc:
            param = _param(exc)  # OpenAI's codes, not narrate's (docs/guides/openai-speech.md)
            said = "model_not_installed" if param == "model" else "invalid_value"
            raise SpeechError(str(exc), param, said) from None
        renderer = self.pipeline.segments
        speaker = renderer.spoken_segment(plan, 0)
        warnings: list[Notice] = []
        try:
            engine, voice, speech = renderer.voicing.speak(
                self.pipeline.catalog.casting(plan.voices[0]), speaker, speed, warnings, {}
            )
        except NarrateError as exc:
            raise SpeechError(str(exc), None, "engine_failed", 502, "server_error") from None
        reader = getattr(self.pipeline.engines[engine], "reader", "text")
        timed = source_words(speech.boundaries, speaker.spoken(reader), 1.0, speech.duration_ms)
        words = [TimedWord(offset + s, offset + e, a / 1000, b / 1000) for s, e, a, b in timed]
        audio = resample(speech.audio, speech.rate, self.rate)
        return Said(engine, voice, speech.cached, audio, words)


def _param(exc: InputError) -> str:
    """The request field an InputError of the plan is about, in the request's words."""
    loc = [str(p) for p in getattr(exc, "loc", ())]
    if "engine" in loc or "not installed" in str(exc):
        return "model"
    if "voice" in loc or "voice" in str(exc):
        return "voice"
    return "input"

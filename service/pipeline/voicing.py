"""Who says a segment, and at what native rate: the cast engine, falling back along the
casting's chain (edge -> kokoro -> the neural voice if installed -> espeak-ng) where allowed,
re-synthesized at the rates that home in on the target length."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from service.domain.errors import EngineError
from service.domain.notices import Notice, fell_back
from service.domain.spec import FitOptions
from service.domain.speech import Lexicon, SpokenText, Tools, front_end
from service.domain.timeline import next_rate
from service.domain.voices import INSTALL, Casting, Catalog
from service.ports import Speech, TtsEngine, TtsRequest

log = logging.getLogger("narrate.voicing")
MAX_RATE_PASSES = 3  # re-syntheses at a new native rate after the natural-rate pass


@dataclass
class SpokenSegment:
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
    number: int | None = None  # the segment's, 1-based (its warnings name it)
    cache_scope: str = ""  # TtsRequest.cache_scope: a tenant's own audition
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
            cache_scope=self.cache_scope,
        )


@dataclass
class Voiced:
    """A segment's synthesis: which engine and voice made it, at which native rate."""

    engine: str
    voice: str
    natural_ms: int
    speech: Speech
    rate: float


class Voicing:
    def __init__(self, engines: dict[str, TtsEngine], catalog: Catalog) -> None:
        self.engines = engines
        self.catalog = catalog

    def speak(
        self,
        casting: Casting,
        speaker: SpokenSegment,
        rate: float,
        warnings: list[Notice],
        calls: dict[str, int],
    ) -> tuple[str, str, Speech]:
        """Synthesize with the cast engine (given the text its kind reads); fall back to the
        offline voice where allowed. ``calls`` counts the syntheses each engine answered
        (cache hits, failed and circuit-broken attempts do not)."""
        engine = self.engines.get(casting.engine)
        if engine is not None:
            try:
                request = speaker.request(engine, casting.voice.id, rate)
                speech = engine.synthesize(request)
                calls[casting.engine] = calls.get(casting.engine, 0) + (not speech.cached)
                return casting.engine, casting.voice.id, speech
            except EngineError as exc:  # a failed or circuit-broken attempt is no call
                if casting.fallback is None:
                    raise
                reason = str(exc)
        else:
            if casting.fallback is None:
                raise EngineError(casting.engine, self.missing(casting.engine))
            reason = self.missing(casting.engine)
        fallback = casting.fall_back()
        # Voices of engines this machine lacks (kokoro without its pack) are passed over, and
        # said so in the one warning: a user learns why espeak-ng spoke and how to fix it.
        while fallback.engine not in self.engines and fallback.fallback is not None:
            reason = f"{reason}; {self.missing(fallback.engine)}"
            fallback = fallback.fall_back()
        warnings.append(fell_back(reason, fallback.engine, fallback.voice.id, speaker.number))
        log.warning("%s; falling back to %s voice %s", reason, fallback.engine, fallback.voice.id)
        return self.speak(fallback, speaker, rate, warnings, calls)

    @staticmethod
    def missing(engine: str) -> str:
        if engine in INSTALL:
            return f"{engine} is not installed (run: {INSTALL[engine]})"
        return f"{engine} is not available"

    def native_fit(
        self,
        casting: Casting,
        speaker: SpokenSegment,
        target_ms: int,
        fit: FitOptions,
        warnings: list[Notice],
        calls: dict[str, int],
        start: float = 1.0,
    ) -> Voiced:
        """Synthesize at the starting rate (the segment's own, else natural), then at the
        native rates that home in on ``target_ms``; the slowest is ``fit.max_slowdown`` of
        the start. Every pass uses the engine that answered the first; if a later pass
        fails there, the whole fit starts again on the fallback voice, so one segment's
        audio never mixes engines. An engine that predicts its length (kokoro) homes in on
        its predictions and synthesizes once, at the rate they give (after the first
        synthesis, when the fit fell back to it)."""
        if start != 1.0:
            fit = fit.model_copy(update={"max_slowdown": fit.max_slowdown * start})
        predicted = self.predicted(casting, speaker, target_ms, fit, start)
        rate = start if predicted is None else predicted[0]
        engine_name, voice, first = self.speak(casting, speaker, rate, warnings, calls)
        natural = first.duration_ms
        if predicted is not None and engine_name == casting.engine:
            natural = predicted[1]
        pinned = Casting(engine_name, self.catalog.get(voice), None)
        engine = self.engines[engine_name]
        speeches = [first]

        def synthesized(at: float) -> int:
            speeches.append(self.speak(pinned, speaker, at, warnings, calls)[2])
            return speeches[-1].duration_ms

        tried = [(rate, first.duration_ms)]
        try:
            if predicted is None and engine_name != casting.engine:
                # Fallen back (edge offline, under auto) to an engine that may predict: its
                # predictions from here, then one synthesis at the rate they give.
                later = self.predicted(pinned, speaker, target_ms, fit, rate)
                if later is not None and later[0] != rate:
                    tried = [(later[0], synthesized(later[0]))]
            tried = home_in(tried, target_ms, fit, engine, synthesized)
        except EngineError as exc:
            rest = casting.after(engine_name)
            if rest is None:
                raise
            warnings.append(fell_back(str(exc), rest.engine, rest.voice.id, speaker.number))
            return self.native_fit(rest, speaker, target_ms, fit, warnings, calls, start)
        return Voiced(engine_name, voice, natural, speeches[-1], tried[-1][0])

    def predicted(
        self, casting: Casting, speaker: SpokenSegment, target_ms: int, fit: FitOptions,
        start: float,
    ) -> tuple[float, int] | None:  # fmt: skip
        """(the native rate, the length at ``start``) by the cast engine's own predictions of
        its length, homing in as ``native_fit`` does on syntheses; None: it predicts none
        (or cannot now: the synthesis then says why, or falls back)."""
        engine = self.engines.get(casting.engine)
        predict: Callable[[TtsRequest], int] | None = getattr(engine, "predict_ms", None)
        if engine is None or predict is None:
            return None

        def predicted_at(at: float) -> int:
            return predict(speaker.request(engine, casting.voice.id, at))

        try:
            tried = home_in([(start, predicted_at(start))], target_ms, fit, engine, predicted_at)
        except EngineError:
            return None
        return tried[-1][0], tried[0][1]


def home_in(
    tried: list[tuple[float, int]],
    target_ms: int,
    fit: FitOptions,
    engine: TtsEngine,
    measure: Callable[[float], int],
) -> list[tuple[float, int]]:
    """``tried`` (rate, length) with the rates ``next_rate`` asks for after it, each measured
    (a synthesis, or a prediction), up to MAX_RATE_PASSES: the last is the one to keep."""
    for _ in range(MAX_RATE_PASSES):
        wanted = next_rate(tried, target_ms, fit, engine.min_rate, engine.max_rate)
        if wanted is None:
            break
        tried = [*tried, (wanted, measure(wanted))]
    return tried

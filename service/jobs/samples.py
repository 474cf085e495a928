"""A voice auditioned before a render: a short sentence spoken through the same engines, TTS
cache and fallback a job's segment uses (``GET /v1/voices/{id}/sample`` translates HTTP)."""

from __future__ import annotations

from dataclasses import dataclass

from service.audio.wav import wav_bytes
from service.domain.fields import rate_multiplier
from service.domain.notices import Notice
from service.domain.spec import RenderOptions, spec_from_data
from service.jobs.service import JobService
from service.pipeline import Pipeline

SAMPLE_TEXT = {
    "zh": "你好,这是这个声音的试听:语速、音调和停顿都和正式渲染一样。",
    "en": "Hello, this is how this voice sounds in a render.",
}


class UnknownVoice(LookupError):
    """No voice of that id (the route's 404)."""


@dataclass(frozen=True)
class Sample:
    """What spoke (the engine and voice: an edge voice may fall back to the offline one),
    whether the TTS cache answered, and the mono WAV."""

    engine: str
    voice: str
    cached: bool
    wav: bytes


class Samples:
    def __init__(self, jobs: JobService) -> None:
        self.pipeline: Pipeline = jobs.pipeline

    def speak(self, voice_id: str, text: str, rate: str, pitch: str, tenant: str) -> Sample:
        """``text`` (default: a sample line in the voice's language) in voice ``voice_id`` at
        ``rate`` and ``pitch``, checked as a segment's are."""
        pipeline = self.pipeline
        known = {v.id: v for v in pipeline.catalog.voices}
        if voice_id not in known:
            raise UnknownVoice(f"no voice {voice_id!r}: GET /v1/voices lists them")
        voice = known[voice_id]
        language = "en" if voice.language.startswith("en") else "zh"
        segment: dict[str, object] = {
            "text": text.strip() or SAMPLE_TEXT.get(language, SAMPLE_TEXT["en"]),
            "seconds": 60,
            "voice": voice_id,
        }
        if rate:
            segment["rate"] = rate
        if pitch:
            segment["pitch"] = pitch
        data = {"language": language, "segments": [segment]}  # as a script's JSON gives it
        spec = spec_from_data(data)  # rate, pitch checked
        engine = "auto" if voice.engine == "edge" else voice.engine
        plan = pipeline.door.plan(spec, RenderOptions.model_validate({"engine": engine}))
        renderer = pipeline.segments
        speaker = renderer.spoken_segment(plan, 0)
        if text.strip():  # the tenant's own words: its own cache entry (the sample line: all's)
            speaker.cache_scope = tenant
        warnings: list[Notice] = []
        spoke, said_by, speech = renderer.voicing.speak(
            pipeline.catalog.casting(plan.voices[0]),
            speaker,
            rate_multiplier(spec.segments[0].rate),
            warnings,
            {},
        )
        return Sample(spoke, said_by, speech.cached, wav_bytes(speech.audio, speech.rate))

"""The voice catalog (data in voices/catalog.json) and how a job's engine and voice resolve."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from service.domain.errors import VoiceError
from service.domain.spec import JobSpec

OFFLINE = "espeak"


@dataclass(frozen=True, slots=True)
class Voice:
    id: str
    engine: str
    language: str
    gender: str = ""
    default: bool = False
    rate: str = "+0%"
    pitch: str = "+0Hz"
    words_per_minute: int = 175


@dataclass(frozen=True, slots=True)
class Casting:
    """Who speaks a job: the engine and voice to try first, and the offline fallback."""

    engine: str
    voice: Voice
    fallback: Voice | None


class Catalog:
    def __init__(self, voices: list[Voice]) -> None:
        self.voices = voices
        self.by_id = {v.id: v for v in voices}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Catalog:
        return cls([Voice(**v) for v in data["voices"]])

    def default(self, engine: str, language: str) -> Voice:
        return next(
            v for v in self.voices if v.engine == engine and v.language == language and v.default
        )

    def get(self, voice_id: str, field: str = "") -> Voice:
        if voice_id in self.by_id:
            return self.by_id[voice_id]
        lowered = {k.lower(): k for k in self.by_id}
        if voice_id.lower() in lowered:
            return self.by_id[lowered[voice_id.lower()]]
        near = difflib.get_close_matches(voice_id.lower(), list(lowered), n=3, cutoff=0.5)
        raise VoiceError(voice_id, tuple(lowered[n] for n in near), field)

    def _voice(self, spec: JobSpec, voice_id: str, field: str) -> Voice:
        """A catalog voice that speaks the job's language, or a VoiceError naming ``field``."""
        chosen = self.get(voice_id, field)
        if chosen.language != spec.language:
            raise VoiceError(
                voice_id,
                tuple(v.id for v in self.voices if v.language == spec.language)[:3],
                field,
                f"voice {chosen.id!r} speaks {chosen.language}, not the job's {spec.language}",
            )
        return chosen

    def cast(
        self,
        spec: JobSpec,
        engine: str | None = None,
        voice: str | None = None,
        segment: int | None = None,
    ) -> Casting:
        """Resolve the engine and voice of the job, or of one segment (its own voice or its
        speaker's wins over the job's); raise VoiceError for an unknown voice or one that
        speaks another language."""
        engine = engine or spec.engine
        field = "voice"
        voice_id = voice
        if voice_id is None and segment is not None and spec.voice_of(segment):
            voice_id = spec.voice_of(segment)
            seg = spec.segments[segment]
            field = f"speakers {seg.speaker}" if seg.speaker else f"segment {segment + 1} voice"
        voice_id = voice_id or spec.voice
        chosen = self._voice(spec, voice_id, field) if voice_id else None
        offline = self.default(OFFLINE, spec.language)
        if engine == OFFLINE or (engine == "auto" and chosen and chosen.engine == OFFLINE):
            return Casting(
                OFFLINE, chosen if chosen and chosen.engine == OFFLINE else offline, None
            )
        primary = (
            chosen if chosen and chosen.engine == "edge" else self.default("edge", spec.language)
        )
        return Casting("edge", primary, offline if engine == "auto" else None)

    def cast_all(self, spec: JobSpec) -> list[Casting]:
        """Every segment's casting: checks every voice a job names, at the door."""
        for name, voice_id in spec.speakers.items():
            self._voice(spec, voice_id, f"speakers {name}")
        return [self.cast(spec, segment=i) for i in range(len(spec.segments))]


@lru_cache(maxsize=4)
def load_catalog(path: Path) -> Catalog:
    return Catalog.from_data(json.loads(Path(path).read_text(encoding="utf-8")))

"""The voice catalog (data in voices/catalog.json) and how a job's engine and voice resolve."""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from service.domain.errors import InputError, VoiceError
from service.domain.spec import JobSpec

OFFLINE = "espeak"
# The opt-in neural offline voice: used only once installed (its licence is non-commercial).
NEURAL = "fastspeech2"
NEURAL_INSTALL = "narrate voices install zh-baker --accept-license"


@dataclass(frozen=True, slots=True)
class Voice:
    id: str
    engine: str
    language: str
    gender: str = ""
    default: bool = False


@dataclass(frozen=True, slots=True)
class Casting:
    """Who speaks a job: the engine and voice to try first, and the offline fallback."""

    engine: str
    voice: Voice
    fallback: Voice | None
    more: tuple[Voice, ...] = ()  # fallbacks after ``fallback``, in order

    def fall_back(self) -> Casting:
        """The casting that tries ``fallback`` next (then the rest of the chain)."""
        assert self.fallback is not None
        fb = self.fallback
        return Casting(fb.engine, fb, self.more[0] if self.more else None, self.more[1:])

    def after(self, engine: str) -> Casting | None:
        """The rest of the chain after the voice of ``engine`` (None: nothing after it)."""
        chain = [self.voice, *([self.fallback] if self.fallback else []), *self.more]
        for i, v in enumerate(chain):
            if v.engine == engine and i + 1 < len(chain):
                rest = chain[i + 1 :]
                return Casting(
                    rest[0].engine, rest[0], rest[1] if len(rest) > 1 else None, tuple(rest[2:])
                )
        return None


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

    def get(self, voice_id: str) -> Voice:
        if voice_id in self.by_id:
            return self.by_id[voice_id]
        lowered = {k.lower(): k for k in self.by_id}
        if voice_id.lower() in lowered:
            return self.by_id[lowered[voice_id.lower()]]
        near = difflib.get_close_matches(voice_id.lower(), list(lowered), n=3, cutoff=0.5)
        raise VoiceError(voice_id, tuple(lowered[n] for n in near))

    def cast(
        self,
        spec: JobSpec,
        engine: str | None = None,
        voice: str | None = None,
        installed: Collection[str] = (),
    ) -> Casting:
        """Resolve the job's engine and voice; raise VoiceError for an unknown voice or one
        that speaks another language, InputError for the neural voice when not installed.
        ``installed``: the engines this machine has (the neural one only once installed).
        ``auto`` tries edge, then the neural voice (if installed, for its language), then
        espeak-ng."""
        engine = engine or spec.engine
        voice_id = voice or spec.voice
        chosen = self.get(voice_id) if voice_id else None
        if chosen and chosen.language != spec.language:
            raise VoiceError(
                voice_id or "",
                tuple(v.id for v in self.voices if v.language == spec.language)[:3],
            )
        offline = self.default(OFFLINE, spec.language)
        neural = next(
            (v for v in self.voices if v.engine == NEURAL and v.language == spec.language), None
        )
        if engine == NEURAL or (engine == "auto" and chosen and chosen.engine == NEURAL):
            if neural is None:
                raise InputError(f"engine {NEURAL} has no {spec.language!r} voice")
            if NEURAL not in installed:
                raise InputError(
                    f"the {NEURAL} voice {neural.id} is not installed; run: {NEURAL_INSTALL}"
                )
            pick = chosen if chosen and chosen.engine == NEURAL else neural
            return Casting(NEURAL, pick, offline if engine == "auto" else None)
        if engine == OFFLINE or (engine == "auto" and chosen and chosen.engine == OFFLINE):
            return Casting(
                OFFLINE, chosen if chosen and chosen.engine == OFFLINE else offline, None
            )
        primary = (
            chosen if chosen and chosen.engine == "edge" else self.default("edge", spec.language)
        )
        if engine != "auto":
            return Casting("edge", primary, None)
        if neural is not None and NEURAL in installed:
            return Casting("edge", primary, neural, (offline,))
        return Casting("edge", primary, offline)


@lru_cache(maxsize=4)
def load_catalog(path: Path) -> Catalog:
    return Catalog.from_data(json.loads(Path(path).read_text(encoding="utf-8")))

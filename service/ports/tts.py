"""What a TTS engine is given and gives back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from service.domain.units import samples_to_ms


@dataclass(frozen=True, slots=True)
class TtsRequest:
    text: str
    voice: str
    language: str
    rate: float = 1.0  # multiplier of the engine's default speaking rate
    pitch: str = "+0Hz"
    volume: str = "+0%"
    phrase_chars: int = 16  # engines without boundary events speak phrases of this size
    # The phrases (spans of ``text``) such engines speak one by one; empty: split_phrases of
    # ``text`` by ``phrase_chars``. The pipeline passes the display phrases mapped through the
    # speech front-end, so a phrase ends where its subtitle does.
    phrases: tuple[tuple[int, int], ...] = ()
    # Whose cache entry this is: "" (every job's: one phrase synthesised once for all), or a
    # tenant's own (an audition of its own text: a hit must not tell another tenant that
    # someone spoke that exact phrase).
    cache_scope: str = ""


@dataclass(frozen=True, slots=True)
class Boundary:
    """A stretch of the text (character offsets) and when it is spoken (ms into the audio)."""

    start: int
    end: int
    start_ms: int
    end_ms: int


@dataclass(slots=True)
class Speech:
    audio: np.ndarray  # mono float32 in [-1, 1], leading and trailing silence trimmed
    rate: int
    boundaries: list[Boundary] = field(default_factory=list)
    cached: bool = False  # served by the TTS cache: no call reached the engine

    @property
    def duration_ms(self) -> int:
        return samples_to_ms(len(self.audio), self.rate)


class TtsEngine(Protocol):
    name: str

    @property
    def version(self) -> str: ...

    max_rate: float  # fastest native rate multiplier the engine takes
    min_rate: float

    def synthesize(self, request: TtsRequest) -> Speech: ...

"""What a speech recogniser is given and gives back: the speech check (service/pipeline/
listen.py) transcribes each fitted segment through this port."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True, slots=True)
class HeardWord:
    """A word (or, for Chinese, a run of characters) and when it was heard, ms into the
    audio given."""

    text: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True, slots=True)
class Transcript:
    """What the recogniser heard: the text as it writes it (Whisper may write Mandarin in
    Traditional characters and numbers as digits: the comparison folds both), its words
    with times where the recogniser gives them (empty otherwise), and what it cost."""

    text: str
    language: str
    words: tuple[HeardWord, ...] = ()
    audio_seconds: float = 0.0
    cpu_seconds: float = 0.0


class Recogniser(Protocol):
    """An offline speech recogniser: loaded once per process (on first use), the language
    forced (the segment's), input bounded (``max_seconds``; longer audio is cut there)."""

    name: str  # e.g. "whisper-base-ct2-int8": recorded with each check
    max_seconds: float

    def transcribe(
        self, audio: np.ndarray, rate: int, language: str, timed: bool = False
    ) -> Transcript:
        """``audio``: mono float32 at ``rate`` Hz. ``timed``: the transcript's words with their
        times too (a whole-script take is split by them; it costs an alignment pass). Raises
        RecogniserMissing (its message names the install command) when the model is not on
        this machine."""
        ...


@runtime_checkable
class ForcedScorer(Protocol):
    """A recogniser that can also score given transcripts of a segment's audio (the speech
    check's 多音字 test), for audio of at most ``score_seconds``."""

    score_seconds: float

    def score(self, audio: np.ndarray, rate: int, language: str, texts: list[str]) -> list[float]:
        """The log-probability of each of ``texts`` as the transcript of ``audio``."""
        ...

"""espeak-ng: offline, no boundary events, so it is driven phrase by phrase and every
phrase's timing is measured from its own audio."""

from __future__ import annotations

import subprocess
from functools import cached_property

import numpy as np

from service.audio import read_wav, silence, speech_bounds
from service.domain.errors import EngineError
from service.domain.text import Segmenter, pause_after, split_phrases
from service.ports import Boundary, Speech, TtsRequest

BASE_WPM = 175


class EspeakEngine:
    name = "espeak"
    min_rate = 80 / BASE_WPM
    max_rate = 4.0  # 700 words/min: espeak-ng's sonic speed-up still sounds clean there

    def __init__(
        self, binary: str = "espeak-ng", timeout: float = 60.0, segment: Segmenter | None = None
    ) -> None:
        self.binary = binary
        self.timeout = timeout
        self.segment = segment  # phrases split as the subtitles will be: never inside a word

    @cached_property
    def version(self) -> str:
        try:
            out = subprocess.run(
                [self.binary, "--version"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except OSError as exc:
            raise EngineError(self.name, f"{self.binary} is not installed ({exc})") from None
        return out.split("Data at")[0].strip() or "unknown"

    def _speak(self, text: str, voice: str, wpm: int) -> tuple[np.ndarray, int]:
        argv = [self.binary, "-v", voice, "-s", str(wpm), "--stdout"]
        try:
            # Text goes on stdin so that no phrase can be read as an option.
            proc = subprocess.run(
                argv, input=text.encode(), capture_output=True, timeout=self.timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise EngineError(
                self.name, f"timed out after {self.timeout:g} s", retryable=True
            ) from None
        except OSError as exc:
            raise EngineError(self.name, f"cannot run {self.binary}: {exc}") from None
        if proc.returncode != 0 or not proc.stdout:
            raise EngineError(
                self.name, f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}"
            )
        return read_wav(proc.stdout)

    def synthesize(self, request: TtsRequest) -> Speech:
        rate = min(max(request.rate, self.min_rate), self.max_rate)
        wpm = round(BASE_WPM * rate)
        pieces: list[np.ndarray] = []
        boundaries: list[Boundary] = []
        sr = 22050
        cursor = speech_end = 0  # samples
        for start, end in split_phrases(request.text, request.phrase_chars, self.segment):
            phrase = request.text[start:end]
            audio, sr = self._speak(phrase, request.voice, wpm)
            a, b = speech_bounds(audio)
            if b > a:
                pieces.append(audio[a:b])
                boundaries.append(
                    Boundary(
                        start, end, round(cursor * 1000 / sr), round((cursor + b - a) * 1000 / sr)
                    )
                )
                cursor += b - a
                speech_end = cursor
            pause = silence(round(pause_after(phrase) / rate * sr / 1000))
            pieces.append(pause)
            cursor += len(pause)
        # The last phrase's pause is not speech: drop it so the audio ends where speech ends.
        audio = np.concatenate(pieces)[:speech_end] if pieces else silence(0)
        return Speech(audio.astype(np.float32), sr, boundaries)

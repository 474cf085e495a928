"""A timeline of any length in blocks of bounded size: sources, mixing, and meters
that read block by block."""

from __future__ import annotations

import bisect
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from service.audio.arrays import Audio, resample
from service.audio.loudness import _abs_max, oversample4
from service.audio.wav import read_wav

# -- streaming: a timeline of any length in blocks of bounded size ------------------------
BLOCK = 1 << 16  # samples per block: 2.7 s at 24 kHz, a few MB of work arrays
_TP_CONTEXT = 16  # resample_poly(x, 4, 1)'s filter reaches 10 input samples either side


class Source(Protocol):
    """A mono track read in pieces: ``read(a, b)`` is samples [a, b) as float32."""

    @property
    def length(self) -> int: ...

    def read(self, a: int, b: int) -> Audio: ...


class ArraySource:
    def __init__(self, x: Audio) -> None:
        self.x = np.asarray(x, dtype=np.float32)

    @property
    def length(self) -> int:
        return len(self.x)

    def read(self, a: int, b: int) -> Audio:
        return self.x[a:b]


class MixSource:
    """Fitted segment WAVs laid at sample offsets on a silent track of ``length`` samples,
    read from disk block by block: memory does not grow with the timeline."""

    def __init__(self, placed: list[tuple[Path, int]], length: int, rate: int) -> None:
        self._length = length
        self.parts: list[tuple[int, int, Path | Audio]] = []  # (start, frames, file or audio)
        for path, start in placed:
            with wave.open(str(path), "rb") as w:
                frames, ok = (
                    w.getnframes(),
                    (w.getframerate() == rate and w.getnchannels() == 1 and w.getsampwidth() == 2),
                )
            if ok:
                self.parts.append((start, frames, path))
            else:  # not our own format: one segment (at most 600 s) in memory, resampled
                x, src_rate = read_wav(path)
                x = resample(x, src_rate, rate)
                self.parts.append((start, len(x), x))
        self.parts.sort(key=lambda p: p[0])
        self._starts = [p[0] for p in self.parts]

    @property
    def length(self) -> int:
        return self._length

    def read(self, a: int, b: int) -> Audio:
        out = np.zeros(max(0, b - a), dtype=np.float32)
        first = max(0, bisect.bisect_right(self._starts, a) - 1)
        for start, frames, data in self.parts[first:]:
            if start >= b:
                break
            lo, hi = max(a, start), min(b, start + frames, self._length)
            if lo >= hi:
                continue
            if isinstance(data, Path):
                with wave.open(str(data), "rb") as w:
                    w.setpos(lo - start)
                    raw = w.readframes(hi - lo)
                out[lo - a : hi - a] = np.frombuffer(raw, dtype="<i2") / np.float32(32768.0)
            else:
                out[lo - a : hi - a] = data[lo - start : hi - start]
        return out


def _blocks(n: int, size: int = BLOCK) -> Iterator[tuple[int, int]]:
    for a in range(0, n, size):
        yield a, min(n, a + size)


class TruePeakMeter:
    """The true peak of a track fed block by block: each sample's 4x oversampled value needs
    10 samples either side, so the meter keeps a short history and counts each sample once,
    when its right-hand context has arrived (or the track has ended)."""

    def __init__(self) -> None:
        self.history = np.zeros(0, dtype=np.float32)
        self.peak = 0.0

    def _count(self, w: Audio, lo: int, hi: int) -> None:
        if hi > lo and np.any(w):
            self.peak = max(self.peak, _abs_max(oversample4(w)[4 * lo : 4 * hi]))

    def feed(self, x: Audio) -> None:
        w = np.concatenate([self.history, x])
        done = max(0, len(self.history) - _TP_CONTEXT)  # history's head is already counted
        self._count(w, done, len(w) - _TP_CONTEXT)
        self.history = w[-2 * _TP_CONTEXT :]

    def finish(self) -> float:
        w = self.history
        self._count(w, max(0, len(w) - _TP_CONTEXT), len(w))
        return 20 * float(np.log10(self.peak)) if self.peak > 0 else float("-inf")

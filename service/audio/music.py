"""Music under the voice: a bed looped or trimmed to the video, levelled against the
loudness target and ducked under speech with smooth ramps, read in blocks like the
narration so a one-hour timeline costs no more memory than a minute."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from service.audio import LoudnessMeter, Source
from service.audio.arrays import Audio
from service.audio.stream import _blocks
from service.domain.ducking import MUSIC_ATTACK_S, MUSIC_RELEASE_S

ATTACK_S = MUSIC_ATTACK_S  # the bed is fully down by the time speech starts
RELEASE_S = MUSIC_RELEASE_S  # and comes back up this long after it ends
FADE_IN_S, FADE_OUT_S = 0.5, 1.5
MAX_MUSIC_S = 3600.0  # the longest file decoded; a bed longer than that loops it


class RawSource:
    """Raw mono float32 on disk, memory-mapped."""

    def __init__(self, path: Path) -> None:
        self.x = np.memmap(path, dtype="<f4", mode="r")

    @property
    def length(self) -> int:
        return len(self.x)

    def read(self, a: int, b: int) -> Audio:
        return np.asarray(self.x[a:b], dtype=np.float32)


def loudness(src: Source, rate: int) -> float:
    meter = LoudnessMeter(rate)
    for a, b in _blocks(src.length):
        meter.feed(src.read(a, b))
    return meter.integrated()


def duck_gain(
    a: int, b: int, speech: list[tuple[int, int]], rate: int, duck_db: float
) -> np.ndarray:
    """The ducking curve (linear gain, 1 = not ducked) for samples [a, b): down by
    ``duck_db`` over every speech interval, raised-cosine ramps of ATTACK_S before it and
    RELEASE_S after. The depth at each sample is the deepest any interval asks for."""
    t = np.arange(a, b, dtype=np.float64)
    depth = np.zeros(b - a)
    att, rel = ATTACK_S * rate, RELEASE_S * rate
    for s, e in speech:
        if e + rel < a or s - att > b:
            continue
        d = np.zeros(b - a)
        d[(t >= s) & (t <= e)] = 1.0
        up = (t > s - att) & (t < s)
        d[up] = 0.5 - 0.5 * np.cos(math.pi * (t[up] - (s - att)) / att)
        down = (t > e) & (t < e + rel)
        d[down] = 0.5 + 0.5 * np.cos(math.pi * (t[down] - e) / rel)
        np.maximum(depth, d, out=depth)
    return np.asarray(10 ** (-duck_db * depth / 20), dtype=np.float32)


class DuckedBed:
    """The music looped to ``length`` samples at ``gain``, faded in and out, ducked under
    the speech intervals."""

    def __init__(
        self,
        music: Source,
        length: int,
        rate: int,
        gain: float,
        speech: list[tuple[int, int]],
        duck_db: float,
    ) -> None:
        self.music, self._length, self.rate = music, length, rate
        self.gain, self.speech, self.duck_db = gain, speech, duck_db

    @property
    def length(self) -> int:
        return self._length

    def read(self, a: int, b: int) -> Audio:
        n = self.music.length
        out = np.empty(b - a, dtype=np.float32)
        pos = a
        while pos < b:  # loop the music
            k = pos % n
            take = min(b - pos, n - k)
            out[pos - a : pos - a + take] = self.music.read(k, k + take)
            pos += take
        t = np.arange(a, b, dtype=np.float64)
        fade = np.minimum(
            np.clip(t / (FADE_IN_S * self.rate), 0, 1),
            np.clip((self._length - t) / (FADE_OUT_S * self.rate), 0, 1),
        )
        curve = duck_gain(a, b, self.speech, self.rate, self.duck_db)
        return np.asarray(out * curve * fade * self.gain, dtype=np.float32)


class SumSource:
    def __init__(self, *sources: Source) -> None:
        self.sources = sources

    @property
    def length(self) -> int:
        return max(s.length for s in self.sources)

    def read(self, a: int, b: int) -> Audio:
        out = np.zeros(b - a, dtype=np.float32)
        for s in self.sources:
            x = s.read(min(a, s.length), min(b, s.length))
            out[: len(x)] += x
        return out


def bed_gain(music_lufs: float, target_lufs: float, level_db: float) -> float:
    """The gain that puts the undocked music ``level_db`` relative to the speech target."""
    if not math.isfinite(music_lufs):
        return 0.0  # silence stays silence
    return float(10 ** ((target_lufs + level_db - music_lufs) / 20))

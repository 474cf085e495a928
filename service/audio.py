"""Audio as numpy float32 arrays in [-1, 1], mono: trimming, resampling, exact length,
loudness normalisation with a true-peak limiter, and WAV reading/writing."""

from __future__ import annotations

import bisect
import io
import os
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from math import gcd
from pathlib import Path
from typing import Protocol

import numpy as np

# scipy.signal (and pyloudnorm, which imports it) take ~1 s of CPU to import: imported where
# used, so a process pays for them when it first needs them (see ``preload``), not at start.

Audio = np.ndarray
SILENCE_THRESHOLD = 10 ** (-50 / 20)  # -50 dBFS: below this an engine's output is silence


def samples(ms: int, rate: int) -> int:
    return round(ms * rate / 1000)


def to_ms(n: int, rate: int) -> int:
    return round(n * 1000 / rate)


def preload() -> None:
    """Import the numeric libraries now (e.g. in a thread while other work waits)."""
    import pyloudnorm  # noqa: F401
    import scipy.ndimage
    import scipy.signal  # noqa: F401


def resample(x: Audio, src: int, dst: int) -> Audio:
    from scipy.signal import resample_poly

    if src == dst or len(x) == 0:
        return x.astype(np.float32)
    g = gcd(src, dst)
    return resample_poly(x, dst // g, src // g).astype(np.float32)


def speech_bounds(x: Audio, threshold: float = SILENCE_THRESHOLD) -> tuple[int, int]:
    """First and one-past-last sample louder than ``threshold``; (0, 0) for silence."""
    loud = np.flatnonzero(np.abs(x) > threshold)
    if len(loud) == 0:
        return 0, 0
    return int(loud[0]), int(loud[-1]) + 1


def fit_length(x: Audio, n: int) -> Audio:
    """Pad with silence or cut to exactly ``n`` samples."""
    if len(x) >= n:
        return x[:n]
    return np.concatenate([x, np.zeros(n - len(x), dtype=np.float32)])


def silence(n: int) -> Audio:
    return np.zeros(max(0, n), dtype=np.float32)


def read_wav(data: bytes | Path) -> tuple[Audio, int]:
    src = io.BytesIO(data) if isinstance(data, bytes) else str(data)
    with wave.open(src, "rb") as w:
        rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
        raw = w.readframes(w.getnframes())
    if width != 2:
        raise ValueError(f"expected 16-bit PCM WAV, got {8 * width}-bit")
    x = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return x, rate


def to_pcm16(x: Audio) -> np.ndarray:
    # The same scale as read_wav, so float -> PCM -> float -> PCM is exact.
    return np.clip(np.round(x * 32768.0), -32768, 32767).astype("<i2")


def quantize(x: Audio) -> Audio:
    """What ``x`` becomes once stored as 16-bit PCM."""
    return to_pcm16(x).astype(np.float32) / 32768.0


def write_wav(path: Path, x: Audio, rate: int) -> None:
    """Mono 16-bit PCM, written under a temporary name and renamed: never half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(to_pcm16(x).tobytes())
    os.replace(tmp, path)


@lru_cache(maxsize=4)
def _oversampling_filter(dtype: str) -> Audio:
    from scipy.signal import firwin

    # resample_poly(x, 4, 1)'s own filter (Kaiser-windowed sinc, 81 taps, gain 4), with the
    # one sample of padding it adds in front: upfirdn with it gives resample_poly's samples.
    h = firwin(81, 1 / 4, window=("kaiser", 5.0)).astype(dtype) * 4
    return np.concatenate([np.zeros(1, dtype=dtype), h])


def oversample4(x: Audio) -> Audio:
    """``resample_poly(x, 4, 1)``, without designing the filter again on every call."""
    from scipy.signal import upfirdn

    x = np.asarray(x)
    dtype = "float32" if x.dtype == np.float32 else "float64"
    return upfirdn(_oversampling_filter(dtype), x, 4, 1)[41 : 41 + 4 * len(x)]


def _abs_max(x: Audio) -> float:
    return max(float(np.max(x)), -float(np.min(x))) if len(x) else 0.0


def true_peak_db(x: Audio) -> float:
    """ITU-R BS.1770 true peak: the peak of the 4x oversampled signal, in dBTP."""
    if len(x) == 0:
        return float("-inf")
    peak = _abs_max(oversample4(x))
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def integrated_lufs(x: Audio, rate: int) -> float:
    import pyloudnorm

    meter = pyloudnorm.Meter(rate)
    # pyloudnorm needs at least one 400 ms gating block.
    if len(x) < rate // 2:
        x = np.concatenate([x, np.zeros(rate // 2 - len(x), dtype=np.float32)])
    return float(meter.integrated_loudness(x.astype(np.float64)))


def limit(x: Audio, rate: int, ceiling_db: float) -> Audio:
    """Look-ahead true-peak limiter: a gain curve that never exceeds what each sample needs.

    The needed gain is min-filtered over twice the smoothing window, then averaged over the
    window, so the smooth curve stays at or below the need everywhere (no overshoot).
    """
    from scipy.ndimage import minimum_filter1d, uniform_filter1d

    ceiling = 10 ** (ceiling_db / 20)
    over = np.abs(oversample4(x))[: 4 * len(x)].reshape(-1, 4).max(axis=1)
    need = np.minimum(1.0, ceiling / np.maximum(over, 1e-9))
    if need.min() >= 1.0:
        return x
    w = max(3, int(rate * 0.008))
    gain = uniform_filter1d(
        minimum_filter1d(need, size=2 * w + 1, mode="nearest"), size=w, mode="nearest"
    )
    return (x * gain).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Loudness:
    integrated_lufs: float
    true_peak_dbtp: float
    gain_db: float


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


class LoudnessMeter:
    """ITU-R BS.1770-4 integrated loudness fed block by block: the K-weighting filters keep
    their state across blocks and each 100 ms hop keeps one sum of squares, so a one-hour
    track needs 36,000 numbers, not the track. Gating as pyloudnorm does it (the blocks and
    their count are pyloudnorm's), so the figure matches ``integrated_lufs``."""

    def __init__(self, rate: int) -> None:
        import pyloudnorm

        self.rate = rate
        stages = pyloudnorm.Meter(rate)._filters.values()
        self.filters = [(f.b, f.a, f.passband_gain) for f in stages]
        self.state = [np.zeros(max(len(b), len(a)) - 1) for b, a, _ in self.filters]
        self.hops: list[float] = []
        self.acc = 0.0
        self.pos = 0

    def _bound(self, k: int) -> int:
        return k * self.rate // 10  # end of hop k-1

    def feed(self, x: Audio) -> None:
        if len(x) == 0:
            return  # lfilter hands back garbage state for an empty input
        if not np.any(x) and all(np.max(np.abs(z)) < 1e-30 for z in self.state):
            # Silence after the filters have rung out (a long timeline is mostly this): the
            # output is zero to far below any gate, and filtering denormals is slow.
            self.state = [np.zeros_like(z) for z in self.state]
            sq = np.zeros(len(x))
        else:
            from scipy.signal import lfilter

            y = np.asarray(x, dtype=np.float64)
            for i, (b, a, g) in enumerate(self.filters):
                y, self.state[i] = lfilter(b, a, y, zi=self.state[i])
                y = g * y
            sq = np.square(y)
        i = 0
        while i < len(sq):
            end = self._bound(len(self.hops) + 1)
            take = min(len(sq) - i, end - self.pos)
            self.acc += float(np.sum(sq[i : i + take]))
            i += take
            self.pos += take
            if self.pos == end:
                self.hops.append(self.acc)
                self.acc = 0.0

    def integrated(self) -> float:
        if self.pos < self.rate // 2:  # as integrated_lufs: short audio padded to 0.5 s
            self.feed(np.zeros(self.rate // 2 - self.pos))
        hops = [*self.hops, self.acc, 0.0, 0.0, 0.0]
        n = self.pos
        blocks = int(np.round((n / self.rate - 0.4) / (0.4 * 0.25))) + 1
        z = np.array([sum(hops[j : j + 4]) for j in range(blocks)]) / (0.4 * self.rate)
        with np.errstate(divide="ignore"):
            loud = -0.691 + 10 * np.log10(z)
        above = z[loud >= -70.0]
        if len(above) == 0:
            return float("-inf")
        relative = -0.691 + 10 * np.log10(np.mean(above)) - 10.0
        gated = z[(loud > relative) & (loud > -70.0)]
        if len(gated) == 0:
            return float("-inf")
        return float(-0.691 + 10 * np.log10(np.mean(gated)))


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


def _limit_block(src: Source, a: int, b: int, gain: float, rate: int, ceiling_db: float) -> Audio:
    """Samples [a, b) of ``limit(src * gain)``: the limiter's filters reach ``margin``
    samples either side, so it runs on the block with that much of the track around it."""
    margin = 2 * max(3, int(rate * 0.008)) + 4 * _TP_CONTEXT
    lo, hi = max(0, a - margin), min(src.length, b + margin)
    chunk = src.read(lo, hi)
    if not np.any(chunk):
        return np.zeros(b - a, dtype=np.float32)
    return limit(chunk * gain, rate, ceiling_db)[a - lo : b - lo]


class _WavOut:
    """Mono 16-bit PCM written block by block under a temporary name; ``commit`` renames it
    into place (never half a file), ``discard`` removes it."""

    def __init__(self, path: Path, rate: int, frames: int) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.w = wave.open(str(self.tmp), "wb")  # noqa: SIM115 (closed by commit/discard)
        self.w.setnchannels(1)
        self.w.setsampwidth(2)
        self.w.setframerate(rate)
        self.w.setnframes(frames)

    def write(self, x: Audio) -> None:
        self.w.writeframesraw(to_pcm16(x).tobytes())

    def commit(self) -> None:
        self.w.close()
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        self.w.close()
        self.tmp.unlink(missing_ok=True)


class _ArrayOut:
    def __init__(self) -> None:
        self.parts: list[Audio] = []

    def write(self, x: Audio) -> None:
        self.parts.append(quantize(x))

    def commit(self) -> None:
        pass

    def discard(self) -> None:
        self.parts = []


Out = _WavOut | _ArrayOut


def _normalize(
    src: Source, rate: int, target: float, peak_db: float, new_out: Callable[[], Out]
) -> Loudness:
    """Gain to ``target`` LUFS, true-peak limit below ``peak_db``, then measure again.

    Limiting lowers loudness a little, so gain and limit repeat until the measurement on the
    16-bit result lands within 0.2 LU of the target with the peak under the ceiling. Each
    pass streams the track in blocks and writes its result as it goes; the last is kept.
    """
    meter, loudest = LoudnessMeter(rate), 0.0
    for a, b in _blocks(src.length):
        x = src.read(a, b)
        meter.feed(x)
        loudest = max(loudest, float(np.max(np.abs(x))) if len(x) else 0.0)
    if loudest <= SILENCE_THRESHOLD:
        out = new_out()
        for a, b in _blocks(src.length):
            out.write(src.read(a, b))
        out.commit()
        return Loudness(float("-inf"), float("-inf"), 0.0)
    tried = [(0.0, meter.integrated())]  # (gain dB, LUFS) pairs measured so far
    gain_db = target - tried[0][1]
    lufs = tp = 0.0
    for attempt in range(6):
        gain = 10 ** (gain_db / 20)
        out, meter, peak = new_out(), LoudnessMeter(rate), TruePeakMeter()
        try:
            for a, b in _blocks(src.length):
                y = quantize(_limit_block(src, a, b, gain, rate, peak_db - 0.3))
                out.write(y)
                meter.feed(y)
                peak.feed(y)
        except BaseException:
            out.discard()
            raise
        lufs, tp = meter.integrated(), peak.finish()
        if (abs(lufs - target) <= 0.2 and tp <= peak_db) or attempt == 5:
            out.commit()
            break
        out.discard()
        # The limiter takes back part of any gain: step along the secant of the last two
        # measurements (slope 1 with no limiting), so the next pass usually lands.
        g0, l0 = tried[-1]
        tried.append((gain_db, lufs))
        slope = (lufs - l0) / (gain_db - g0) if abs(gain_db - g0) > 1e-6 else 1.0
        gain_db += (target - lufs) / min(1.0, max(0.25, slope))
    return Loudness(round(lufs, 2), round(tp, 2), round(gain_db, 2))


def normalize_to_wav(
    src: Source, rate: int, path: Path, target: float = -16.0, peak_db: float = -1.0
) -> Loudness:
    """Normalize ``src`` (see ``_normalize``) into a mono 16-bit WAV at ``path``, in blocks:
    memory stays the same for a one-minute and a one-hour track."""
    return _normalize(src, rate, target, peak_db, lambda: _WavOut(path, rate, src.length))


def normalize(
    x: Audio, rate: int, target: float = -16.0, peak_db: float = -1.0
) -> tuple[Audio, Loudness]:
    """``normalize_to_wav`` for audio in memory: the 16-bit result as float32."""
    outs: list[_ArrayOut] = []

    def new_out() -> _ArrayOut:
        outs.append(_ArrayOut())
        return outs[-1]

    loud = _normalize(ArraySource(x), rate, target, peak_db, new_out)
    parts = outs[-1].parts
    y = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return y, loud

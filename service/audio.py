"""Audio as numpy float32 arrays in [-1, 1], mono: trimming, resampling, exact length,
loudness normalisation with a true-peak limiter, and WAV reading/writing."""

from __future__ import annotations

import io
import os
import wave
from dataclasses import dataclass
from math import gcd
from pathlib import Path

import numpy as np
import pyloudnorm
from scipy.ndimage import minimum_filter1d, uniform_filter1d
from scipy.signal import resample_poly

Audio = np.ndarray
SILENCE_THRESHOLD = 10 ** (-50 / 20)  # -50 dBFS: below this an engine's output is silence


def samples(ms: int, rate: int) -> int:
    return round(ms * rate / 1000)


def to_ms(n: int, rate: int) -> int:
    return round(n * 1000 / rate)


def resample(x: Audio, src: int, dst: int) -> Audio:
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


def true_peak_db(x: Audio) -> float:
    """ITU-R BS.1770 true peak: the peak of the 4x oversampled signal, in dBTP."""
    if len(x) == 0:
        return float("-inf")
    peak = float(np.max(np.abs(resample_poly(x, 4, 1))))
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def integrated_lufs(x: Audio, rate: int) -> float:
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
    ceiling = 10 ** (ceiling_db / 20)
    over = np.abs(resample_poly(x, 4, 1))[: 4 * len(x)].reshape(-1, 4).max(axis=1)
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


def normalize(
    x: Audio, rate: int, target: float = -16.0, peak_db: float = -1.0
) -> tuple[Audio, Loudness]:
    """Gain to ``target`` LUFS, true-peak limit below ``peak_db``, then measure again.

    Limiting lowers loudness a little, so gain and limit repeat until the measurement on the
    16-bit result lands within 0.2 LU of the target with the peak under the ceiling.
    """
    if not np.any(np.abs(x) > SILENCE_THRESHOLD):
        return x, Loudness(float("-inf"), float("-inf"), 0.0)
    source = x
    gain_db = target - integrated_lufs(x, rate)
    y, lufs, tp = x, 0.0, 0.0
    for _ in range(6):
        y = limit(source * 10 ** (gain_db / 20), rate, peak_db - 0.3)
        y = quantize(y)
        lufs, tp = integrated_lufs(y, rate), float(true_peak_db(y))
        if abs(lufs - target) <= 0.2 and tp <= peak_db:
            break
        gain_db += target - lufs
    return y, Loudness(round(lufs, 2), round(tp, 2), round(gain_db, 2))

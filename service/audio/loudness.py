"""ITU-R BS.1770 loudness and true peak of a whole array, and a look-ahead limiter."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from service.audio.arrays import Audio


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

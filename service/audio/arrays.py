"""Audio as numpy float32 arrays in [-1, 1], mono: trimming, resampling, exact length."""

from __future__ import annotations

from math import gcd

import numpy as np

from service.audio.dsp import resample_poly

Audio = np.ndarray
SILENCE_THRESHOLD = 10 ** (-50 / 20)  # -50 dBFS: below this an engine's output is silence


def resample(x: Audio, src: int, dst: int) -> Audio:
    """``x`` at ``src`` Hz as float32 at ``dst`` Hz (scipy's ``resample_poly``, see dsp.py)."""
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

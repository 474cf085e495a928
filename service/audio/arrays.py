"""Audio as numpy float32 arrays in [-1, 1], mono: trimming, resampling, exact length."""

from __future__ import annotations

from math import gcd

import numpy as np

# scipy.signal (and pyloudnorm, which imports it) take ~1 s of CPU to import: imported where
# used, so a process pays for them when it first needs them (see ``preload``), not at start.

Audio = np.ndarray
SILENCE_THRESHOLD = 10 ** (-50 / 20)  # -50 dBFS: below this an engine's output is silence


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

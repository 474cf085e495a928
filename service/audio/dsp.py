"""Numpy-only DSP primitives: scipy's resample_poly and firwin, and ndimage's sliding
minimum and moving average, each giving the same samples within float rounding (iir.py
has lfilter's counterpart; tests/unit/audio/test_dsp.py checks them against scipy and pyloudnorm).

Why not scipy: importing scipy.signal (pyloudnorm imports it too) and scipy.ndimage costs
~0.7-1.3 s of CPU in a cold process, all of it on a render's critical path (one GIL), while
the few filters the service needs are a page of numpy.
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_BLOCK = 1 << 16  # inputs per resample block: bounds the float64 copy of the input
_MACS = 1 << 17  # multiply-adds per matrix product in resample (see _resample_block)


def firwin_lowpass(numtaps: int, cutoff: float, beta: float = 5.0) -> np.ndarray:
    """``scipy.signal.firwin(numtaps, cutoff, window=("kaiser", beta))``: a Kaiser-windowed
    sinc, ``cutoff`` relative to Nyquist, scaled to unit gain at DC."""
    m = np.arange(numtaps) - 0.5 * (numtaps - 1)
    h = cutoff * np.sinc(cutoff * m) * np.kaiser(numtaps, beta)
    taps: np.ndarray = h / np.sum(h)  # numpy types this arithmetic as Any
    return taps


@lru_cache(maxsize=16)
def _polyphase(up: int, down: int) -> tuple[np.ndarray, int]:
    """resample_poly's default filter (10 zero crossings of the slower rate's cutoff each
    side, gain ``up``) laid out for one period of ``up`` outputs: column s holds the
    filter phase that output s uses, reversed, at the offset of the inputs it reads, so a
    period is one row of inputs times this matrix. Also the offset of that row's first input
    from ``period * down``."""
    q = max(up, down)
    half = 10 * q
    h = firwin_lowpass(2 * half + 1, 1 / q) * up
    taps = -(-len(h) // up)
    padded = np.zeros(taps * up)
    padded[: len(h)] = h
    phases = padded.reshape(taps, up).T[:, ::-1]  # row r: taps r, r + up, ..., reversed
    # Output s of a period is sum_j h[p - j*up] x[j] with p = s*down + half: phase p % up,
    # its newest input p // up.
    newest = [(s * down + half) // up for s in range(up)]
    kernel = np.zeros((taps + newest[-1] - newest[0], up))
    for s in range(up):
        off = newest[s] - newest[0]
        kernel[off : off + taps, s] = phases[(s * down + half) % up]
    return kernel, newest[0] - (taps - 1)


def resample_poly(x: np.ndarray, up: int, down: int) -> np.ndarray:
    """``scipy.signal.resample_poly(x, up, down)`` (zero padding at both ends), as float64.

    Outputs come in periods of ``up`` whose inputs start ``down`` apart and use the same
    filter phases, so a run of periods is one matrix product (windows of the input times
    ``_polyphase``'s kernel): only the needed outputs are computed, and the work arrays are
    bounded by the block, not the track."""
    g = gcd(up, down)
    up, down = up // g, down // g
    x = np.asarray(x)
    if up == down:
        return x.astype(np.float64)
    kernel, base = _polyphase(up, down)
    n_out = -(-len(x) * up // down)
    periods = -(-n_out // up)
    y = np.empty((periods, up))
    step = max(1, _BLOCK // down)  # periods per block: about _BLOCK inputs
    for t0 in range(0, periods, step):
        _resample_block(x, y, t0, min(periods, t0 + step), down, kernel, base)
    return y.reshape(-1)[:n_out]


def _resample_block(
    x: np.ndarray, y: np.ndarray, t0: int, t1: int, down: int, kernel: np.ndarray, base: int
) -> None:
    """Periods [t0, t1) of ``resample_poly`` into the rows of ``y``."""
    width, up = kernel.shape
    lo = t0 * down + base  # the inputs [lo, hi) that they read, zero outside the signal
    hi = (t1 - 1) * down + base + width
    seg = np.zeros(hi - lo)
    a, b = max(lo, 0), min(hi, len(x))
    if a < b:
        seg[a - lo : b - lo] = x[a:b]
    windows = sliding_window_view(seg, width)[::down]
    # Small products: OpenBLAS runs them on one thread (a large one spreads over all
    # cores, which under load costs many times the CPU), and the row copies stay in cache.
    rows = max(1, _MACS // (width * up))
    for r in range(0, t1 - t0, rows):
        chunk = np.ascontiguousarray(windows[r : r + rows])
        np.matmul(chunk, kernel, out=y[t0 + r : t0 + r + len(chunk)])


def sliding_min(x: np.ndarray, size: int) -> np.ndarray:
    """``scipy.ndimage.minimum_filter1d(x, size, mode="nearest")`` for odd ``size``: the
    minimum over a centred window, in O(n) (van Herk / Gil-Werman: prefix and suffix minima
    within blocks of ``size``; any window is a suffix of one block and a prefix of the next).
    """
    if size % 2 != 1 or size < 1:
        raise ValueError(f"sliding_min needs an odd window, got {size}")
    n, w = len(x), size // 2
    if n == 0:
        return np.asarray(x).copy()
    blocks = -(-(n + 2 * w) // size)
    padded = np.full(blocks * size, np.inf)
    padded[:w], padded[w : w + n], padded[w + n : n + 2 * w] = x[0], x, x[-1]
    rows = padded.reshape(blocks, size)
    prefix = np.minimum.accumulate(rows, axis=1).reshape(-1)
    suffix = np.minimum.accumulate(rows[:, ::-1], axis=1)[:, ::-1].reshape(-1)
    return np.minimum(suffix[:n], prefix[size - 1 : size - 1 + n]).astype(x.dtype)


def moving_average(x: np.ndarray, size: int) -> np.ndarray:
    """``scipy.ndimage.uniform_filter1d(x, size, mode="nearest")``: the mean over samples
    [i - size // 2, i - size // 2 + size), edges repeated, from a float64 running sum."""
    n = len(x)
    if n == 0 or size < 1:
        return np.asarray(x).copy()
    left = size // 2
    idx = np.clip(np.arange(-left, n + size - left - 1), 0, n - 1)
    sums = np.concatenate([[0.0], np.cumsum(np.asarray(x, dtype=np.float64)[idx])])
    means: np.ndarray = ((sums[size:] - sums[:-size]) / size).astype(x.dtype)
    return means

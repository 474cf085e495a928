"""Numpy-only DSP primitives: scipy's resample_poly, firwin and lfilter (block by block),
and ndimage's sliding minimum and moving average, each giving the same samples within float
rounding (tests/test_dsp.py checks them against scipy and pyloudnorm).

Why not scipy: importing scipy.signal (pyloudnorm imports it too) and scipy.ndimage costs
~1.3 s of CPU in a cold process, all of it on a render's critical path (one GIL), while
the few filters the service needs are a page of numpy.
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_BLOCK = 1 << 16  # inputs per resample block: bounds the float64 copy of the input
_MACS = 1 << 17  # multiply-adds per matrix product in resample (see _resample_block)
_SUB = 1 << 14  # samples per FFT convolution in Biquad (FFT size twice that)


def firwin_lowpass(numtaps: int, cutoff: float, beta: float = 5.0) -> np.ndarray:
    """``scipy.signal.firwin(numtaps, cutoff, window=("kaiser", beta))``: a Kaiser-windowed
    sinc, ``cutoff`` relative to Nyquist, scaled to unit gain at DC."""
    m = np.arange(numtaps) - 0.5 * (numtaps - 1)
    h = cutoff * np.sinc(cutoff * m) * np.kaiser(numtaps, beta)
    return h / np.sum(h)


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


@lru_cache(maxsize=16)
def impulse_response(b: tuple[float, ...], a: tuple[float, ...], n: int) -> np.ndarray:
    """The first ``n`` samples of the impulse response of b / a (a[0] = 1, three of each),
    by the recursion itself, as lfilter runs it: closed forms and FFT division lose digits
    near the high pass's double pole at DC. A few ms, once per filter and rate."""
    out = [0.0] * n
    y1 = y2 = 0.0
    for k in range(n):
        out[k] = y0 = (b[k] if k < 3 else 0.0) - a[1] * y1 - a[2] * y2
        y1, y2 = y0, y1
    h = np.array(out)
    h.flags.writeable = False  # shared by every Biquad with these coefficients
    return h


class Biquad:
    """``scipy.signal.lfilter(b, a, x, zi=state)`` for a second-order section, called block
    after block with the state carried (transposed direct form II, as lfilter keeps it).

    A block's output is its zero-state response h * x plus the carried state's zero-input
    response z0 g + z1 g(. - 1), with h and g the impulse responses of b/a and 1/a, both
    exact within the block when cut to its length. The convolution is one FFT (no loop per
    sample); the last two outputs, which the next state is made of, come from exact dot
    products, so the state does not gather FFT rounding and rings out to zero in silence
    as lfilter's does."""

    def __init__(self, b: np.ndarray, a: np.ndarray) -> None:
        b, a = np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)
        if b.shape != (3,) or a.shape != (3,) or a[0] == 0:
            raise ValueError(f"a biquad needs 3 + 3 coefficients with a[0] != 0: {b}, {a}")
        self.b, self.a = b / a[0], a / a[0]
        self.z = np.zeros(2)
        key = tuple(map(float, self.a))
        self.h = impulse_response(tuple(map(float, self.b)), key, _SUB)
        self.g = impulse_response((1.0, 0.0, 0.0), key, _SUB)
        self.h_spectrum = np.fft.rfft(self.h, 2 * _SUB)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        y = np.empty(len(x))
        for a in range(0, len(x), _SUB):
            y[a : a + _SUB] = self._block(x[a : a + _SUB])
        return y

    def _block(self, x: np.ndarray) -> np.ndarray:
        n = len(x)
        if n == 0:
            return np.zeros(0)
        h, g = self.h[:n], self.g[:n]
        zir = self.z[0] * g
        zir[1:] += self.z[1] * g[:-1]
        if n <= 64:
            y = np.convolve(x, h)[:n] + zir
        elif not np.any(x):  # ringing out: the state's response alone
            y = zir
        else:
            y = np.fft.irfft(np.fft.rfft(x, 2 * _SUB) * self.h_spectrum, 2 * _SUB)[:n] + zir
        y[-1] = np.dot(h, x[::-1]) + zir[-1]
        if n > 1:
            y[-2] = np.dot(h[:-1], x[-2::-1]) + zir[-2]
        # The next state: lfilter's DF2T update after the block's last two samples.
        b, a1, a2 = self.b, self.a[1], self.a[2]
        z1 = b[2] * x[-2] - a2 * y[-2] if n > 1 else self.z[1]
        self.z = np.array([b[1] * x[-1] - a1 * y[-1] + z1, b[2] * x[-1] - a2 * y[-1]])
        return y


def k_weighting(rate: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """ITU-R BS.1770 K-weighting as pyloudnorm designs it (RBJ cookbook biquads): a high
    shelf of +4 dB, Q 1/sqrt(2) at 1500 Hz, then a high pass of Q 0.5 at 38 Hz; as
    (b, a, passband gain) with a[0] = 1, the same arithmetic so the same coefficients."""
    return [_shelf(4.0, 1 / np.sqrt(2), 1500.0, rate), _high_pass(0.5, 38.0, rate)]


def _shelf(gain_db: float, q: float, fc: float, rate: int) -> tuple[np.ndarray, np.ndarray, float]:
    big_a = 10 ** (gain_db / 40.0)
    w0 = 2.0 * np.pi * (fc / rate)
    alpha = np.sin(w0) / (2.0 * q)
    cos, root = np.cos(w0), 2 * np.sqrt(big_a) * alpha
    b0 = big_a * ((big_a + 1) + (big_a - 1) * cos + root)
    b1 = -2 * big_a * ((big_a - 1) + (big_a + 1) * cos)
    b2 = big_a * ((big_a + 1) + (big_a - 1) * cos - root)
    a0 = (big_a + 1) - (big_a - 1) * cos + root
    a1 = 2 * ((big_a - 1) - (big_a + 1) * cos)
    a2 = (big_a + 1) - (big_a - 1) * cos - root
    return np.array([b0, b1, b2]) / a0, np.array([a0, a1, a2]) / a0, 1.0


def _high_pass(q: float, fc: float, rate: int) -> tuple[np.ndarray, np.ndarray, float]:
    w0 = 2.0 * np.pi * (fc / rate)
    alpha = np.sin(w0) / (2.0 * q)
    b0, b1, b2 = (1 + np.cos(w0)) / 2, -(1 + np.cos(w0)), (1 + np.cos(w0)) / 2
    a0, a1, a2 = 1 + alpha, -2 * np.cos(w0), 1 - alpha
    return np.array([b0, b1, b2]) / a0, np.array([a0, a1, a2]) / a0, 1.0


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
    return ((sums[size:] - sums[:-size]) / size).astype(x.dtype)

"""Biquads in series run block by block in numpy, as ``scipy.signal.lfilter(b, a, x,
zi=state)`` runs them one after the other, and the K-weighting of ITU-R BS.1770 as
pyloudnorm designs it: the loudness meter without scipy (see dsp.py for why).

A block's output is the cascade's zero-state response K * x plus each stage's carried
state passed through the stages after it; K and those responses are impulse responses,
exact within a block when cut to its length. So a block costs one FFT convolution however
many stages, with no loop per sample; the state after it (lfilter's transposed direct form
II) is made of each stage's last two inputs and outputs, computed as exact dot products so
it gathers no FFT rounding and rings out to zero in silence as lfilter's does.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

_SUB = 1 << 13  # samples per FFT convolution (FFT size twice that: stays in cache)
_TINY = 1e-200  # kernel values below this are flushed to zero (see _kernels)

Stage = tuple[tuple[float, float, float], tuple[float, float, float], float]  # b, a, gain


def _lfilter(b: tuple[float, ...], a: tuple[float, ...], v: np.ndarray) -> np.ndarray:
    """``lfilter(b, a, v)`` for one biquad by lfilter's own recursion (a[0] = 1)."""
    (b0, b1, b2), a1, a2 = b, a[1], a[2]
    out = []
    z0 = z1 = 0.0
    for x in v.tolist():
        y = b0 * x + z0
        z0, z1 = b1 * x - a1 * y + z1, b2 * x - a2 * y
        out.append(y)
    return np.array(out)


@lru_cache(maxsize=8)
def _kernels(stages: tuple[Stage, ...], n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """For each stage s, the first ``n`` samples of: K[s], the impulse response of stages
    0..s in series (gains between them included); C[s], the response of stages r..s to a
    unit z0 (row 2r) and a unit z1 (row 2r + 1, the same one sample later) in stage r's
    state, for r = 0..s: stage s's output from the states carried in is z.ravel() @ C[s].

    By lfilter's recursion (closed forms and FFT division lose digits near the high pass's
    double pole at DC): ~20 ms, once per rate. The decaying tails are flushed to zero below
    1e-200: subnormal numbers run ~100x slower through every multiply, and no output moves
    by more than 1e-200 of the input."""
    delta = np.zeros(n)
    delta[0] = 1.0
    ks: list[np.ndarray] = []
    qs: list[list[np.ndarray]] = []  # qs[s][r]: stages r..s's response to stage r's z0
    for s, (b, a, _) in enumerate(stages):
        gain = stages[s - 1][2] if s else 1.0
        ks.append(_lfilter(b, a, gain * ks[-1] if s else delta))
        passed = [_lfilter(b, a, gain * q) for q in (qs[-1] if s else [])]
        qs.append([*passed, _lfilter((1.0, 0.0, 0.0), a, delta)])
    carries = []
    for row in qs:
        carry = np.zeros((2 * len(row), n))
        for r, q in enumerate(row):
            carry[2 * r], carry[2 * r + 1, 1:] = q, q[:-1]
        carries.append(carry)
    for kernel in [*ks, *carries]:
        kernel[np.abs(kernel) < _TINY] = 0.0
        kernel.flags.writeable = False  # shared by every cascade with these coefficients
    return ks, carries


class Cascade:
    """Biquads (b, a, passband gain) in series, fed block after block with their state
    carried: the output is ``gain * lfilter(b, a, ...)`` of each stage in turn."""

    def __init__(self, stages: list[tuple[np.ndarray, np.ndarray, float]], sub: int = _SUB) -> None:
        norm: list[Stage] = []
        for b, a, gain in stages:
            b, a = np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)
            if b.shape != (3,) or a.shape != (3,) or a[0] == 0:
                raise ValueError(f"a biquad needs 3 + 3 coefficients with a[0] != 0: {b}, {a}")
            bn, an = (b / a[0]).tolist(), (a / a[0]).tolist()
            norm.append(((bn[0], bn[1], bn[2]), (an[0], an[1], an[2]), float(gain)))
        self.stages = tuple(norm)
        self.z = np.zeros((len(norm), 2))  # each stage's (z0, z1), as lfilter's zi
        self.sub = sub  # samples per FFT convolution (smaller: finer skipping of zeros)
        self.floor = 0.0  # a state below this, on zero input, is taken as rung out (zeros)
        self.k, self.carry = _kernels(self.stages, sub)
        self.k_spectrum = np.fft.rfft(self.k[-1], 2 * sub)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        y = np.empty(len(x))
        for a in range(0, len(x), self.sub):
            y[a : a + self.sub] = self._block(x[a : a + self.sub])
        return y

    def _tail(self, s: int, x: np.ndarray) -> tuple[float, float]:
        """Stage s's last two outputs (the second 0 for a one-sample block), exactly.
        (einsum, not np.dot: OpenBLAS spreads a long dot over every core, and under load
        the spinning threads cost ~10x the CPU.)"""
        n, k, z = len(x), self.k[s], self.z[: s + 1].ravel()
        last = np.einsum("i,i->", k[:n], x[::-1]) + np.einsum("i,i->", z, self.carry[s][:, n - 1])
        if n == 1:
            return float(last), 0.0
        before = np.einsum("i,i->", k[: n - 1], x[-2::-1])
        return float(last), float(before + np.einsum("i,i->", z, self.carry[s][:, n - 2]))

    def _block(self, x: np.ndarray) -> np.ndarray:
        n, last = len(x), len(self.stages) - 1
        if n == 0:
            return np.zeros(0)
        if self.floor and not np.any(x) and np.max(np.abs(self.z)) < self.floor:
            self.z[:] = 0.0
            return np.zeros(n)
        y = np.einsum("i,ij->j", self.z.ravel(), self.carry[last][:, :n])
        if n <= 64:
            y += np.convolve(x, self.k[last][:n])[:n]
        elif np.any(x):
            y += np.fft.irfft(np.fft.rfft(x, 2 * self.sub) * self.k_spectrum, 2 * self.sub)[:n]
        tails = [self._tail(s, x) for s in range(last + 1)]
        y[-1] = tails[last][0]
        if n > 1:
            y[-2] = tails[last][1]
        # Each stage's next state: lfilter's DF2T update after its last two samples.
        w1, w2 = float(x[-1]), float(x[-2]) if n > 1 else 0.0  # the stage's last inputs
        for s, ((_, b1, b2), (_, a1, a2), gain) in enumerate(self.stages):
            u1, u2 = tails[s]
            z1 = b2 * w2 - a2 * u2 if n > 1 else self.z[s, 1]
            self.z[s] = (b1 * w1 - a1 * u1 + z1, b2 * w1 - a2 * u1)
            w1, w2 = gain * u1, gain * u2
        out: np.ndarray = self.stages[last][2] * y  # numpy types float * array as Any
        return out


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

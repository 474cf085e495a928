"""The passes of loudness normalisation (normalize.py) over a track: streamed (every pass
limits and K-weights the track again, memory bounded by the block) or, for a track short
enough to keep its measurements (``REUSE_SAMPLES``: a studio fix's minute or so; longer
tracks stream, their memory flat), reused: the track as read, its BS.1770 K-weighting and
each sample's 4x-oversampled peak are kept from the first pass, and every later pass reads
them.

Why that is the same figure: K-weighting is linear, so the K-weighted limited track is
``gain * K(x) - K(d)`` where ``d = gain * x - limited`` is what the limiter takes away: zero
wherever it does not act, so its filtering skips most of the track. Oversampling is linear
too, so the limiter's need at any gain is the stored peaks times the gain. What differs is
float rounding, and the 16-bit quantization noise (~100 dB under the speech) left out of
the measurement of the written pass: well under 0.001 LU
(tests/unit/audio/test_loudness_reuse.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from service.audio.arrays import Audio
from service.audio.dsp import moving_average, sliding_min
from service.audio.loudness import LoudnessMeter, limit, oversample4
from service.audio.stream import _TP_CONTEXT, Source, _blocks

FIX_SUB = 2048  # the correction's filter blocks: mostly zeros, skipped finely
# The correction's filter state counted as rung out below this (~200 dB under full scale:
# its square is nothing to any gate), so the silence after each limited peak costs nothing.
FIX_FLOOR = 1e-10


def correction_meter(rate: int) -> LoudnessMeter:
    """The meter whose ``weigh`` K-weights the limiter's part ``d``."""
    meter = LoudnessMeter(rate, FIX_SUB)
    meter.filter.floor = FIX_FLOOR
    return meter


REUSE_SAMPLES = 1 << 21  # ~87 s at 24 kHz (a studio fix): 24 MiB kept (12 bytes a sample)
Blocks = Iterable[tuple[int, int, int]]  # (block index, start, end)


@dataclass(frozen=True, slots=True)
class Written:
    """A block of the full pass: samples [a, b) at ``gain``, before and after the limiter."""

    a: int
    b: int
    x: Audio
    limited: Audio
    gain: float


def _window(rate: int) -> int:
    return max(3, int(rate * 0.008))  # the limiter's smoothing window (loudness.limit)


def _margin(rate: int) -> int:
    """How far the limiter's filters reach: a block is limited with this much around it."""
    return 2 * _window(rate) + 4 * _TP_CONTEXT


class Streamed:
    """Every pass reads, limits and K-weights the track again (any length)."""

    def __init__(self, src: Source, rate: int) -> None:
        self.src, self.rate = src, rate

    def first(self, i: int, x: Audio, meter: LoudnessMeter, sample: LoudnessMeter | None) -> None:
        meter.feed(x)
        if sample is not None:
            sample.feed(x)

    def limited(self, a: int, b: int, gain: float, ceiling_db: float) -> tuple[Audio, Audio]:
        """Samples [a, b) of ``limit(src * gain)``, and of ``src * gain``."""
        lo, hi = max(0, a - _margin(self.rate)), min(self.src.length, b + _margin(self.rate))
        chunk = self.src.read(lo, hi)
        if not np.any(chunk):
            return np.zeros(b - a, dtype=np.float32), chunk[a - lo : b - lo]
        x = chunk * gain
        return limit(x, self.rate, ceiling_db)[a - lo : b - lo], x[a - lo : b - lo]

    def measure(
        self, blocks: Blocks, gain: float, ceiling_db: float, sample: bool = False
    ) -> LoudnessMeter:
        """The loudness of the limited blocks (the aim's guess on the sample)."""
        meter = LoudnessMeter(self.rate)
        for _, a, b in blocks:
            meter.feed(self.limited(a, b, gain, ceiling_db)[0])
        return meter

    def count(self, meter: LoudnessMeter, fix: LoudnessMeter, y: Audio, block: Written) -> None:
        """Count the full pass's written block ``y`` into ``meter`` (``fix``: see Reused)."""
        meter.feed(y)


class Reused(Streamed):
    """The track's K-weighting and oversampled peaks, kept from the first pass."""

    def __init__(self, src: Source, rate: int) -> None:
        super().__init__(src, rate)
        self.x = np.zeros(src.length, dtype=np.float32)  # the track, as first read
        self.kx = np.zeros(src.length, dtype=np.float32)  # K(x), as the meter saw it
        self.kx_sample: dict[int, np.ndarray] = {}  # block i: K(x) as the sample meter saw it
        self._over: np.ndarray | None = None
        self._sample_state: np.ndarray | None = None  # the filters after the last sampled block
        # The passes after the first read nothing from ``src``: a source that asks whether its
        # job was canceled as it is read (checked.py) is asked each block instead.
        self.poll: Callable[[], None] | None = getattr(src, "poll", None)

    def first(self, i: int, x: Audio, meter: LoudnessMeter, sample: LoudnessMeter | None) -> None:
        """As Streamed's, but the sample's K-weighting is the track's, corrected for the
        filter state it starts from (see ``_as_sampled``): one filtering, not two."""
        a = meter.pos  # where this block starts on the track
        self.x[a : a + len(x)] = x
        before = meter.filter.z.copy()
        weighted = meter.weigh(x)
        meter.add(weighted)
        self.kx[a : a + len(x)] = weighted
        if sample is not None:
            self.kx_sample[i] = self._as_sampled(meter, weighted, before)
            sample.add(self.kx_sample[i])
            self._sample_state = meter.filter.z.copy()

    def _as_sampled(
        self, meter: LoudnessMeter, weighted: np.ndarray, before: np.ndarray
    ) -> np.ndarray:
        """The block K-weighted as a meter fed the sample alone weighs it: that meter starts
        the block in the state the track's was in after the last sampled block, not after
        the block just before. A block's output is its zero-state response plus its start
        state's ringing (linear in the state), so only the ringing differs; it dies within
        the first FFT block (the high pass at 38 Hz falls ~80 e-folds in 8192 samples at
        24 kHz), as does the difference of the states the two meters end the block in."""
        cascade = meter.filter
        start = self._sample_state if self._sample_state is not None else np.zeros_like(before)
        n = min(len(weighted), cascade.sub)
        last = len(cascade.stages) - 1
        ring = np.einsum("i,ij->j", (start - before).ravel(), cascade.carry[last][:, :n])
        out = weighted.astype(np.float64)
        out[:n] += cascade.stages[last][2] * ring
        return out.astype(np.float32)

    @property
    def over(self) -> np.ndarray:
        """Each sample's loudest 4x-oversampled value (as ``limit`` reads it), once."""
        if self._over is None:
            n = self.src.length
            over = np.empty(n, dtype=np.float32)
            for a, b in _blocks(n):
                lo, hi = max(0, a - _TP_CONTEXT), min(n, b + _TP_CONTEXT)
                up = np.abs(oversample4(self.x[lo:hi]))[: 4 * (hi - lo)]
                m = np.maximum(np.maximum(up[0::4], up[1::4]), np.maximum(up[2::4], up[3::4]))
                over[a:b] = m[a - lo : b - lo]
            self._over = over
        return self._over

    def limited(self, a: int, b: int, gain: float, ceiling_db: float) -> tuple[Audio, Audio]:
        if self.poll is not None:
            self.poll()
        lo, hi = max(0, a - _margin(self.rate)), min(self.src.length, b + _margin(self.rate))
        chunk = self.x[lo:hi]
        x = chunk * gain
        if not np.any(chunk):
            return np.zeros(b - a, dtype=np.float32), x[a - lo : b - lo]
        ceiling = 10 ** (ceiling_db / 20)
        need = np.minimum(1.0, ceiling / np.maximum(self.over[lo:hi] * gain, 1e-9))
        if need.min() >= 1.0:
            return x[a - lo : b - lo], x[a - lo : b - lo]
        curve = gain_curve(need, _window(self.rate))
        return (x * curve).astype(np.float32)[a - lo : b - lo], x[a - lo : b - lo]

    def measure(
        self, blocks: Blocks, gain: float, ceiling_db: float, sample: bool = False
    ) -> LoudnessMeter:
        meter, correction = LoudnessMeter(self.rate), correction_meter(self.rate)
        for i, a, b in blocks:
            y, x = self.limited(a, b, gain, ceiling_db)
            kx = self.kx_sample[i] if sample else self.kx[a:b]
            meter.add(gain * kx.astype(np.float64) - correction.weigh(x - y))
        return meter

    def count(self, meter: LoudnessMeter, fix: LoudnessMeter, y: Audio, block: Written) -> None:
        """From the kept K(x) and the limiter's part alone, K-weighted by ``fix`` (the
        quantization of ``y`` left out: ~100 dB down)."""
        kx = self.kx[block.a : block.b].astype(np.float64)
        meter.add(block.gain * kx - fix.weigh(block.x - block.limited))


def gain_curve(need: np.ndarray, w: int) -> np.ndarray:
    """``moving_average(sliding_min(need, 2w + 1), w)`` (the limiter's smooth gain), computed
    only around the samples that need limiting: a sample farther than 2w from every one of
    them has need 1 all through the windows that reach it, so its gain is exactly 1, and each
    run of the rest is computed on itself with 2w either side (the windows' whole reach)."""
    curve = np.ones(len(need), dtype=need.dtype)
    hit = np.flatnonzero(need < 1.0)
    if len(hit) == 0:
        return curve
    reach = 2 * w
    # Runs of hits closer than 2 * reach apart are one span: [first - reach, last + reach).
    breaks = np.flatnonzero(np.diff(hit) > 2 * reach)
    firsts, lasts = hit[np.r_[0, breaks + 1]], hit[np.r_[breaks, len(hit) - 1]]
    for first, last in zip(firsts.tolist(), lasts.tolist(), strict=True):
        s, e = max(0, first - reach), min(len(need), last + reach + 1)
        lo, hi = max(0, s - reach), min(len(need), e + reach)
        part = moving_average(sliding_min(need[lo:hi], 2 * w + 1), w)
        curve[s:e] = part[s - lo : e - lo]
    return curve


def passes(src: Source, rate: int, reuse: bool | None = None) -> Streamed:
    """The passes for ``src``: reused when asked, or (None) when the track is short enough."""
    if reuse is None:
        reuse = src.length <= REUSE_SAMPLES
    return Reused(src, rate) if reuse else Streamed(src, rate)

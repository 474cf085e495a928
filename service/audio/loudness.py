"""ITU-R BS.1770 loudness (whole or fed block by block) and true peak, and a look-ahead
limiter."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from service.audio.arrays import Audio, resample
from service.audio.dsp import moving_average, resample_poly, sliding_min
from service.audio.iir import Cascade, k_weighting


def oversample4(x: Audio) -> Audio:
    """``resample_poly(x, 4, 1)``: the 4x oversampled signal true peak is read from, in
    ``x``'s precision (float32 stays float32)."""
    x = np.asarray(x)
    y = resample_poly(x, 4, 1)
    return y.astype(np.float32) if x.dtype == np.float32 else y


def _abs_max(x: Audio) -> float:
    return max(float(np.max(x)), -float(np.min(x))) if len(x) else 0.0


def true_peak_db(x: Audio) -> float:
    """ITU-R BS.1770 true peak: the peak of the 4x oversampled signal, in dBTP."""
    if len(x) == 0:
        return float("-inf")
    peak = _abs_max(oversample4(x))
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def loudness_range(x: Audio, rate: int) -> float:
    """EBU Tech 3342 loudness range in LU (``LoudnessMeter.loudness_range``)."""
    meter = LoudnessMeter(rate)
    meter.feed(x)
    return meter.loudness_range()


def integrated_lufs(x: Audio, rate: int) -> float:
    """ITU-R BS.1770-4 integrated loudness in LUFS, as pyloudnorm measures it (audio
    shorter than one 400 ms gating block padded with silence to 0.5 s)."""
    meter = LoudnessMeter(rate)
    meter.feed(x)
    return meter.integrated()


class LoudnessMeter:
    """ITU-R BS.1770-4 integrated loudness fed block by block: the K-weighting filters keep
    their state across blocks and each 100 ms hop keeps one sum of squares, so a one-hour
    track needs 36,000 numbers, not the track. Filters and gating as pyloudnorm does them
    (the blocks and their count are pyloudnorm's), so the figure is pyloudnorm's."""

    def __init__(self, rate: int, sub: int | None = None) -> None:
        self.rate = rate
        self.filter = Cascade(k_weighting(rate), *(() if sub is None else (sub,)))
        self.hops: list[float] = []
        self.acc = 0.0
        self.pos = 0

    def _bound(self, k: int) -> int:
        return k * self.rate // 10  # end of hop k-1

    def feed(self, x: Audio) -> None:
        self.add(self.weigh(x))

    def weigh(self, x: Audio) -> np.ndarray:
        """``x`` K-weighted (the filters' state carried on), not yet counted: ``add`` counts it."""
        if len(x) == 0:
            return np.zeros(0)
        if not np.any(x) and np.max(np.abs(self.filter.z)) < 1e-30:
            # Silence after the filters have rung out (a long timeline is mostly this): the
            # output is zero to far below any gate, so no filtering at all.
            self.filter.z[:] = 0.0
            return np.zeros(len(x))
        weighted: np.ndarray = self.filter(x)
        return weighted

    def add(self, weighted: np.ndarray) -> None:
        """Count K-weighted samples (``weigh``'s, or a sum of them) into the hops: each hop's
        sum of squares in one ``reduceat`` (no loop per hop)."""
        sq = np.square(weighted)
        n = len(sq)
        if n == 0:
            return
        # Hop k ends at _bound(k + 1); those ending within this block, relative to its start.
        last = (10 * (self.pos + n) + 9) // self.rate
        ends = np.arange(len(self.hops) + 1, last + 1) * self.rate // 10 - self.pos
        if len(ends) == 0:
            self.acc += float(np.sum(sq))
        else:
            sums = np.add.reduceat(sq[: ends[-1]], np.concatenate([[0], ends[:-1]]))
            sums[0] += self.acc
            self.hops.extend(sums.tolist())
            self.acc = float(np.sum(sq[ends[-1] :]))
        self.pos += n

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

    def loudness_range(self) -> float:
        """EBU Tech 3342 loudness range, LU: the spread (10th to 95th percentile) of the
        short-term loudness (3 s windows every 100 ms, from the hops kept), gated at -70 LUFS
        and 20 LU below the gated windows' mean power. 0.0 for audio under 3 s or silence."""
        hops = np.array(self.hops)
        if len(hops) < 30:
            return 0.0
        sums = np.convolve(hops, np.ones(30), mode="valid")  # every full 3 s window
        power = sums / (3.0 * self.rate)
        with np.errstate(divide="ignore"):
            short = -0.691 + 10 * np.log10(power)
        kept = short >= -70.0
        if not np.any(kept):
            return 0.0
        relative = -0.691 + 10 * np.log10(np.mean(power[kept])) - 20.0
        gated = short[kept & (short >= relative)]
        low, high = np.percentile(gated, [10, 95])
        return float(high - low)


def limit(x: Audio, rate: int, ceiling_db: float) -> Audio:
    """Look-ahead true-peak limiter: a gain curve that never exceeds what each sample needs.

    The needed gain is min-filtered over twice the smoothing window, then averaged over the
    window, so the smooth curve stays at or below the need everywhere (no overshoot).
    """
    ceiling = 10 ** (ceiling_db / 20)
    up = np.abs(oversample4(x))[: 4 * len(x)]
    # Each sample's loudest of its 4 oversampled values; four strided maxima are ~7x faster
    # than reducing a (n, 4) array along its short axis.
    over = np.maximum(np.maximum(up[0::4], up[1::4]), np.maximum(up[2::4], up[3::4]))
    need = np.minimum(1.0, ceiling / np.maximum(over, 1e-9))
    if need.min() >= 1.0:
        return x
    w = max(3, int(rate * 0.008))
    gain = moving_average(sliding_min(need, 2 * w + 1), w)
    limited: np.ndarray = (x * gain).astype(np.float32)  # numpy types x * gain as Any
    return limited


def preload(rate: int = 24000) -> None:
    """Design the filters a render uses (espeak-ng's 22050 Hz to ``rate``, 4x oversampling,
    K-weighting at ``rate``; ~10 ms, mostly the K-weighting's impulse responses) before the
    first segment needs them, e.g. as a worker process starts."""
    resample(np.zeros(64, dtype=np.float32), 22050, rate)
    oversample4(np.zeros(64, dtype=np.float32))
    LoudnessMeter(rate)


@dataclass(frozen=True, slots=True)
class Loudness:
    integrated_lufs: float
    true_peak_dbtp: float
    gain_db: float
    loudness_range_lu: float = 0.0

"""The numpy DSP (service/audio/dsp.py) against what it replaces: scipy's resample_poly,
firwin, upfirdn, lfilter and ndimage filters, and pyloudnorm's meter, on random signals,
silence, DC and full scale, odd lengths and every block size; and a cold render that
imports neither scipy nor pyloudnorm, nor pypinyin's tables."""

from __future__ import annotations

from math import gcd

import numpy as np
import pyloudnorm
import pytest
from scipy import ndimage, signal

from service import audio
from service.audio import dsp, iir

RATES = [8000, 16000, 22050, 24000, 44100, 48000]


def signals(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The shapes of input that break filters: noise, a tone, silence, DC, full scale."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return {
        "noise": (rng.standard_normal(n) * 0.3).astype(np.float32),
        "tone": (0.5 * np.sin(2 * np.pi * 0.031 * t)).astype(np.float32),
        "silence": np.zeros(n, dtype=np.float32),
        "dc": np.full(n, 0.7, dtype=np.float32),
        "full": np.where(rng.random(n) < 0.5, -1.0, 1.0).astype(np.float32),
    }


@pytest.mark.parametrize(
    "numtaps, cutoff", [(81, 1 / 4), (3201, 1 / 160), (2941, 1 / 147), (41, 1 / 2)]
)
def test_firwin_is_scipys(numtaps: int, cutoff: float) -> None:
    ref = signal.firwin(numtaps, cutoff, window=("kaiser", 5.0))
    assert np.allclose(dsp.firwin_lowpass(numtaps, cutoff), ref, rtol=0, atol=1e-15)


@pytest.mark.parametrize("src", RATES)
@pytest.mark.parametrize("dst", [24000, 16000])
@pytest.mark.parametrize("n", [1, 2, 7, 1001, 50_003])
def test_resample_is_scipys_resample_poly(src: int, dst: int, n: int) -> None:
    g = gcd(src, dst)
    for kind, x in signals(n, seed=n).items():
        ref = signal.resample_poly(x, dst // g, src // g)
        got = audio.resample(x, src, dst)
        assert got.dtype == np.float32 and got.shape == ref.shape, kind
        assert np.max(np.abs(got - ref), initial=0) <= 1e-6, (kind, src, dst, n)


def test_resample_of_an_hour_is_done_in_bounded_blocks() -> None:
    # Longer than many of dsp's blocks: block edges must not show in the output.
    x = signals(3 * dsp._BLOCK + 12_345)["noise"]
    ref = signal.resample_poly(x.astype(np.float64), 160, 147)
    assert np.max(np.abs(dsp.resample_poly(x, 160, 147) - ref)) <= 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 21, 1000, 70_001])
def test_oversample4_gives_resample_polys_samples(n: int) -> None:
    for kind, x in signals(n, seed=n).items():
        for dtype in (np.float32, np.float64):
            ref = signal.resample_poly(x.astype(dtype), 4, 1)
            got = audio.oversample4(x.astype(dtype))
            assert got.dtype == dtype and got.shape == ref.shape
            assert np.max(np.abs(got - ref)) <= (2e-6 if dtype == np.float32 else 1e-12), kind


@pytest.mark.parametrize("rate", RATES)
def test_k_weighting_is_pyloudnorms(rate: int) -> None:
    stages = list(pyloudnorm.Meter(rate)._filters.values())
    ours = iir.k_weighting(rate)
    assert len(ours) == len(stages) == 2
    for (b, a, gain), ref in zip(ours, stages, strict=True):
        assert np.array_equal(b, ref.b) and np.array_equal(a, ref.a)  # the same arithmetic
        assert gain == ref.passband_gain


def feed_sizes(total: int, sizes: list[int]) -> list[int]:
    out: list[int] = []
    i = 0
    while sum(out) < total:
        out.append(min(sizes[i % len(sizes)], total - sum(out)))
        i += 1
    return out


# Two rates: the rate only sets the coefficients (each rate's own are checked against
# pyloudnorm's in test_k_weighting_is_pyloudnorms); the feed sizes are what the state carries.
@pytest.mark.parametrize("rate", [16000, 48000])
@pytest.mark.parametrize(
    "sizes", [[1], [2], [1, 2, 3], [63, 64, 65, 1], [8191, 8193, 20_000], [90_000]]
)
@pytest.mark.parametrize("stages", [[0], [1], [0, 1]])
def test_cascade_block_by_block_is_lfilter_with_state(
    rate: int, sizes: list[int], stages: list[int]
) -> None:
    """One biquad or the two of K-weighting in series, with a gain between them."""
    total = 3000 if max(sizes) < 100 else 90_000
    x = np.concatenate([signals(total // 2, rate)["noise"], np.zeros(total - total // 2)])
    coeffs = [(b, a, 1.5 - i) for i, (b, a, _) in enumerate(iir.k_weighting(rate))]
    coeffs = [coeffs[i] for i in stages]
    ours, zi, pos = iir.Cascade(coeffs), [np.zeros(2) for _ in coeffs], 0
    for size in feed_sizes(total, sizes):
        ref = x[pos : pos + size].astype(np.float64)
        for i, (b, a, gain) in enumerate(coeffs):
            ref, zi[i] = signal.lfilter(b, a, ref, zi=zi[i])
            ref = gain * ref
        got = ours(x[pos : pos + size])
        pos += size
        assert np.max(np.abs(got - ref)) <= 1e-10, size
        assert np.max(np.abs(ours.z - np.array(zi))) <= 1e-10, size


def pyloudnorm_lufs(x: np.ndarray, rate: int) -> float:
    if len(x) < rate // 2:  # pyloudnorm needs a whole 400 ms block: padded as the service does
        x = np.concatenate([x, np.zeros(rate // 2 - len(x), dtype=x.dtype)])
    return float(pyloudnorm.Meter(rate).integrated_loudness(x.astype(np.float64)))


@pytest.mark.parametrize("rate", RATES)
def test_integrated_loudness_is_pyloudnorms(rate: int) -> None:
    for n in (1, rate // 3, 3 * rate + 17):
        for kind, x in signals(n, seed=rate).items():
            ref, got = pyloudnorm_lufs(x, rate), audio.integrated_lufs(x, rate)
            assert got == ref or abs(got - ref) <= 1e-6, (kind, n, got, ref)


@pytest.mark.parametrize("size", [1, 2, 999, 4800, 70_000])
def test_the_meter_fed_in_blocks_is_pyloudnorm_on_the_whole(size: int) -> None:
    rate = 8000 if size < 10 else 24000  # block size 1 at 8 kHz: 20k feeds, not 60k
    x = np.concatenate([signals(rate, size)["noise"], np.zeros(rate // 3), signals(rate)["tone"]])
    meter = audio.LoudnessMeter(rate)
    for a in range(0, len(x), size):
        meter.feed(x[a : a + size])
    assert meter.integrated() == pytest.approx(pyloudnorm_lufs(x, rate), abs=1e-6)


@pytest.mark.parametrize("n", [1, 2, 5, 190, 191, 1000, 10_001])
@pytest.mark.parametrize("size", [1, 3, 5, 191, 385])
def test_sliding_min_is_ndimages(n: int, size: int) -> None:
    x = np.random.default_rng(n * size).random(n)
    assert np.array_equal(
        dsp.sliding_min(x, size), ndimage.minimum_filter1d(x, size, mode="nearest")
    )


@pytest.mark.parametrize("n", [1, 2, 5, 190, 191, 1000, 10_001])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 191, 192])
def test_moving_average_is_ndimages(n: int, size: int) -> None:
    x = np.random.default_rng(n * size).random(n)
    ref = ndimage.uniform_filter1d(x, size, mode="nearest")
    assert np.max(np.abs(dsp.moving_average(x, size) - ref)) <= 1e-12


def scipy_limit(x: np.ndarray, rate: int, ceiling_db: float) -> np.ndarray:
    """The limiter as it was, on scipy's filters."""
    ceiling = 10 ** (ceiling_db / 20)
    over = np.abs(signal.resample_poly(x, 4, 1)).reshape(-1, 4).max(axis=1)
    need = np.minimum(1.0, ceiling / np.maximum(over, 1e-9))
    if need.min() >= 1.0:
        return x
    w = max(3, int(rate * 0.008))
    gain = ndimage.uniform_filter1d(
        ndimage.minimum_filter1d(need, size=2 * w + 1, mode="nearest"), size=w, mode="nearest"
    )
    limited: np.ndarray = (x * gain).astype(np.float32)  # numpy types x * gain as Any
    return limited


@pytest.mark.parametrize("rate", [16000, 24000, 48000])
@pytest.mark.parametrize("gain", [0.5, 2.0, 8.0])
def test_limiter_and_true_peak_are_unchanged(rate: int, gain: float) -> None:
    for kind, x in signals(rate + 11, seed=rate).items():
        y = (x * gain).astype(np.float32)
        got, ref = audio.limit(y, rate, -1.3), scipy_limit(y, rate, -1.3)
        assert np.max(np.abs(got - ref)) <= 1e-6, kind
        peak = np.max(np.abs(signal.resample_poly(got, 4, 1)))
        want = 20 * np.log10(peak) if peak > 0 else float("-inf")
        assert audio.true_peak_db(got) == pytest.approx(want, abs=1e-5), kind


COLD = """
import sys
import numpy as np
from service.cli.main import main

rc = main(sys.argv[1:])
from service import audio  # and every entry point the render may not have reached
x = (np.random.default_rng(0).standard_normal(30000) * 0.2).astype(np.float32)
audio.resample(x, 22050, 24000), audio.resample(x, 48000, 24000), audio.true_peak_db(x)
audio.limit(x * 9, 24000, -1.0), audio.normalize(x, 24000), audio.integrated_lufs(x, 24000)
audio.preload()
heavy = ("scipy", "pyloudnorm", "jieba", "redis", "celery", "kombu", "aiohttp", "edge_tts",
         "httpx", "boto3", "fastapi")
print("rc", rc, "imported", sorted({m.split(".")[0] for m in sys.modules} & set(heavy)))
"""


COLD_ZH = """
import sys
from service.cli.main import main

rc = main(sys.argv[1:])
tables = ("pypinyin.phrases_dict", "pypinyin.pinyin_dict", "pypinyin.seg.mmseg")
print("rc", rc, "imported", [m for m in tables if m in sys.modules])
"""

"""Loudness normalisation with the first pass's measurements reused (service/audio/passes.py)
gives the streamed passes' figures within 0.01 LU and nearly the same samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service.audio import normalize
from service.audio.checked import Checked
from service.audio.dsp import moving_average, sliding_min
from service.audio.loudness import LoudnessMeter
from service.audio.normalize import SAMPLE_FROM, _sampled, normalize_to_wav
from service.audio.passes import Reused, gain_curve
from service.audio.stream import ArraySource, _blocks

RATE = 24000


def speechlike(seconds: float, seed: int, peaky: float = 6.0) -> np.ndarray:
    """Syllable bursts of tone and noise with sharp peaks and pauses (espeak-like)."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    env = np.clip(np.sin(2 * np.pi * rng.uniform(3, 5) * t), 0, None) ** 2
    env *= np.repeat(rng.uniform(0.2, 1.0, n // RATE + 1), RATE)[:n]
    env[(t % 4.0) > 3.4] = 0.0  # a pause every 4 s
    tone = np.sin(2 * np.pi * 180 * t) + 0.5 * np.sin(2 * np.pi * 1100 * t)
    x = env * (0.6 * tone + 0.3 * rng.standard_normal(n))
    spikes = rng.choice(n, size=int(seconds * 4), replace=False)
    x[spikes] *= peaky  # consonant peaks the limiter has to take
    out: np.ndarray = (0.1 * x / np.max(np.abs(x))).astype(np.float32)
    return out


@pytest.mark.parametrize(
    ("seconds", "target", "peak_db"),
    [(8.0, -16.0, -1.0), (SAMPLE_FROM / RATE + 6, -16.0, -1.0), (12.0, -14.0, -2.0)],
)
def test_reused_measurements_give_the_streamed_figures(
    seconds: float, target: float, peak_db: float
) -> None:
    same(speechlike(seconds, seed=int(seconds)), target, peak_db)


def same(x: np.ndarray, target: float = -16.0, peak_db: float = -1.0) -> None:
    old_y, old = normalize(x, RATE, target, peak_db, reuse=False)
    new_y, new = normalize(x, RATE, target, peak_db, reuse=True)
    assert abs(old.gain_db - new.gain_db) <= 0.01, (old, new)
    assert abs(old.integrated_lufs - new.integrated_lufs) <= 0.01, (old, new)
    assert abs(old.true_peak_dbtp - new.true_peak_dbtp) <= 0.01, (old, new)
    assert abs(old.loudness_range_lu - new.loudness_range_lu) <= 0.01, (old, new)
    assert new.true_peak_dbtp <= peak_db
    assert len(old_y) == len(new_y) and np.max(np.abs(old_y - new_y)) <= 2 / 32768  # LSBs


def test_silence_and_unlimited_audio_agree_too() -> None:
    quiet = speechlike(5.0, seed=3, peaky=1.0) * np.float32(0.05)  # gain, never a limit
    same(quiet)
    silence = np.zeros(RATE * 3, dtype=np.float32)
    assert normalize(silence, RATE, reuse=True)[1] == normalize(silence, RATE, reuse=False)[1]


def test_the_samples_weighting_is_derived_as_a_meter_of_its_own_would_weigh_it() -> None:
    x = speechlike(SAMPLE_FROM / RATE + 9, seed=7)
    track = Reused(ArraySource(x), RATE)
    meter, derived, own = LoudnessMeter(RATE), LoudnessMeter(RATE), LoudnessMeter(RATE)
    for i, (a, b) in enumerate(_blocks(len(x))):
        sampled = _sampled(i, len(x))
        track.first(i, x[a:b], meter, derived if sampled else None)
        if sampled:
            alone = own.weigh(x[a:b])
            own.add(alone)
            assert np.max(np.abs(track.kx_sample[i] - alone)) < 1e-6 * np.max(np.abs(alone)), i
    assert i >= 9 and abs(derived.integrated() - own.integrated()) < 1e-6


def test_the_gain_curve_around_the_peaks_is_the_whole_tracks() -> None:
    rng = np.random.default_rng(0)
    for trial in range(100):
        n, w, k = int(rng.integers(1, 20000)), int(rng.integers(3, 300)), int(rng.integers(0, 30))
        need = np.ones(n, dtype=np.float32)
        need[rng.integers(0, n, k)] = rng.uniform(0.3, 0.999, k).astype(np.float32)
        whole = moving_average(sliding_min(need, 2 * w + 1), w)
        assert np.max(np.abs(gain_curve(need, w) - whole)) < 1e-6, trial


def test_a_cancel_during_the_reused_passes_stops_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passes after the first read nothing from the track; its job's cancel check must
    still be asked (a canceled burn-in job's loudness stage would run on, and its picture
    encode with it). The check here raises once the whole track has been read once."""
    track = ArraySource(speechlike(8.0, seed=3))
    read = [0]

    def check() -> None:
        if read[0] >= track.length:
            raise RuntimeError("canceled")

    class Counted:
        length = track.length

        def read(self, a: int, b: int) -> np.ndarray:
            read[0] += b - a
            return track.read(a, b)

    monkeypatch.setattr("service.audio.checked.CHECK_SECONDS", 0.0)  # every call asks
    with pytest.raises(RuntimeError, match="canceled"):
        normalize_to_wav(Checked(Counted(), check), RATE, tmp_path / "n.wav", reuse=True)
    assert read[0] == track.length  # read once: the raise came from a reused pass

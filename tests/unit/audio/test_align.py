"""The alignment's parts on synthetic signals: MFCC frames and pauses, the DTW path (which
must be a monotone function of reference frames that recovers a known warp), and times
mapped through it onto a take that pauses differently; and, on speech made by espeak-ng, the
round trip that tells a reading of the text from a reading of another."""

from __future__ import annotations

import numpy as np

from devtools.takes import RATE, espeak_phrase
from service.audio.align import align
from service.audio.dtw import banded, compress_pauses, warp
from service.audio.mfcc import FEATURE_RATE, features, pause_runs
from service.pipeline.takes import trimmed

SR = FEATURE_RATE


def chirps(pattern: list[tuple[float, float]], seed: int = 0) -> np.ndarray:
    """Tone bursts (frequency Hz, seconds; frequency 0 is a pause), with harmonics and a
    little noise: distinct spectra in sequence, like syllables."""
    rng = np.random.default_rng(seed)
    out = []
    for f, secs in pattern:
        t = np.arange(int(secs * SR)) / SR
        if f == 0:
            out.append(np.zeros(len(t)))
        else:
            tone = sum(np.sin(2 * np.pi * f * k * t) / k for k in (1, 2, 3))
            out.append(0.3 * tone * np.hanning(len(t)) ** 0.2)
    x = np.concatenate(out)
    return (x + rng.normal(0, 1e-4, len(x))).astype(np.float32)


def test_pauses_are_found_where_the_signal_is_silent() -> None:
    x = chirps([(300, 0.5), (0, 0.4), (900, 0.5)])
    runs = pause_runs(features(x).pause, 10)
    assert len(runs) == 1
    a, b = runs[0]
    assert abs(a - 50) <= 3 and abs(b - 90) <= 3  # 10 ms frames


def test_a_known_warp_is_recovered() -> None:
    rng = np.random.default_rng(1)
    ref = rng.normal(size=(300, 6)).astype(np.float32)
    take = ref[(np.arange(450) / 1.5).astype(np.int64)]  # 1.5x slower: frames repeated
    path = warp(ref, take)
    assert np.all(np.diff(path.take) >= 0) and path.take[0] == 0 and path.take[-1] == 449
    # Each reference frame lands on one of the take frames that repeat it.
    assert np.all((path.take / 1.5).astype(np.int64) == np.arange(300))
    assert path.total < 300 * 0.5  # penalties only: every pair matched is identical


def test_the_band_keeps_the_path_of_the_full_matrix() -> None:
    rng = np.random.default_rng(2)
    ref = rng.normal(size=(900, 6)).astype(np.float32)
    idx = np.clip((np.arange(1100) / 1100 * 900).astype(int), 0, 899)
    take = ref[idx] + rng.normal(0, 0.1, size=(1100, 6)).astype(np.float32)
    full = banded(ref, take, np.zeros(900, dtype=np.int64), 1100)
    fast = warp(ref, take)  # coarse pass, then a band around it
    assert np.mean(np.abs(full.take - fast.take)) <= 1.0


def test_a_take_longer_than_three_times_has_no_path() -> None:
    ref = np.zeros((10, 4), dtype=np.float32)
    assert not np.isfinite(warp(ref, np.zeros((40, 4), dtype=np.float32)).total)


def test_long_pauses_are_cut_to_one_length() -> None:
    pause = np.zeros(100, dtype=bool)
    pause[20:80] = True
    kept = compress_pauses(pause, 12)
    assert len(kept) == 100 - 60 + 12 and kept[25] == 25 and kept[-1] == 99


def test_times_map_onto_a_take_that_pauses_and_speaks_at_another_pace() -> None:
    notes = [440, 520, 610, 700, 820, 950]
    ref = chirps([(notes[0], 0.3), (notes[1], 0.3), (0, 0.2), (notes[2], 0.3),
                  (notes[3], 0.3), (0, 0.2), (notes[4], 0.3), (notes[5], 0.3)])  # fmt: skip
    take = chirps([(notes[0], 0.4), (notes[1], 0.4), (0, 0.9), (notes[2], 0.4),
                   (notes[3], 0.4), (0, 0.5), (notes[4], 0.4), (notes[5], 0.4)], 1)  # fmt: skip
    found = align(ref, SR, take, SR)
    # Phrase starts after each pause: 0.8 s and 1.6 s in the reference.
    assert abs(found.to_take_ms(800, "start") - 1700) <= 40
    assert abs(found.to_take_ms(1600, "start") - 3000) <= 40
    assert abs(found.to_take_ms(300, "start") - 400) <= 60  # mid-phrase, no pause to snap to
    other = chirps([(1500, 0.5), (200, 0.5), (0, 0.2), (1200, 0.5), (350, 0.6)], 2)
    assert align(ref, SR, other, SR).cost > found.cost


def test_readings_of_one_text_agree_both_ways_and_of_another_do_not() -> None:
    """On speech (espeak-ng): the round trip reference -> take -> reference comes home for
    another voice reading the text, and goes astray for a reading of another text."""
    text = "The result is better code, and steadier training for everyone."
    ref = espeak_phrase(text, "en-us", 175, 50)
    same = espeak_phrase(text, "en-us+f3", 220, 80)
    other = espeak_phrase(
        "Tomorrow it will rain over the hills and the farms.", "en-us+f3", 220, 80
    )
    home = align(ref, RATE, same, RATE)
    away = align(ref, RATE, other, RATE)
    assert home.round_trip_ms <= 60 and away.round_trip_ms >= 150, (home, away)
    assert home.cost < away.cost


def test_a_take_is_trimmed_to_its_speech_above_a_room_noise_floor() -> None:
    speech = chirps([(440, 0.5), (0, 0.2), (700, 0.5)])
    rng = np.random.default_rng(5)

    def room(seconds: float) -> np.ndarray:
        return rng.normal(0, 10 ** (-45 / 20), int(seconds * SR)).astype(np.float32)

    take = np.concatenate([room(0.8), speech + room(len(speech) / SR), room(1.0)])
    kept = trimmed(take)
    assert abs(len(kept) - len(speech)) <= 0.05 * SR  # within 50 ms of the speech alone


def test_a_take_with_no_path_at_all_is_an_infinite_cost_of_the_references_length() -> None:
    """A long steady tone against a short reading: even the coarse warp finds no path; the
    alignment is then "no path" at full resolution (it was the coarse one, a quarter as
    long, and reading it per reference frame raised IndexError)."""
    ref = espeak_phrase(
        "most reinforcement learning for code agents rewards one thing", "en-us", 160, 50
    )
    t = np.arange(RATE * 20) / RATE
    tone = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    found = align(ref, RATE, tone, RATE)
    assert found.cost == float("inf") and found.round_trip_ms == float("inf")
    assert len(found.path) == len(found.ref_kept) == len(found.trip)
    assert 0 <= found.to_take_ms(500.0) <= 20_000

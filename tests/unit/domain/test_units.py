"""The time-unit conversions: their doctests, and round trips within half a unit."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from service.domain import units

RATES = st.sampled_from([8000, 16000, 22050, 24000, 44100, 48000])


def test_doctests() -> None:
    result = doctest.testmod(units)
    assert result.attempted >= 7 and result.failed == 0


@given(st.integers(0, 10**8), RATES)
def test_ms_survive_a_trip_through_samples(ms: int, rate: int) -> None:
    # A sample is shorter than a millisecond at every rate narrate uses: exact.
    assert units.samples_to_ms(units.ms_to_samples(ms, rate), rate) == ms


@given(st.integers(0, 10**9), RATES)
def test_samples_move_at_most_half_a_millisecond(n: int, rate: int) -> None:
    back = units.ms_to_samples(units.samples_to_ms(n, rate), rate)
    assert abs(back - n) <= rate / 2000 + 1e-9


@given(st.integers(0, 10**12))
def test_ticks_round_to_the_nearest_millisecond(ticks: int) -> None:
    assert abs(units.ticks_to_ms(ticks) * units.TICKS_PER_MS - ticks) <= units.TICKS_PER_MS / 2


@given(st.integers(0, 10**7), st.sampled_from([23.976, 24.0, 25.0, 29.97, 30.0, 60.0]))
def test_frames_survive_a_trip_through_ms(frames: int, fps: float) -> None:
    assert units.ms_to_frames(units.frames_to_ms(frames, fps), fps) == frames

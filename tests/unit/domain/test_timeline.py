from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PaceOverflowError, ScriptError
from service.domain.script import parse_script
from service.domain.spec import FitOptions, JobSpec, Segment, Shot
from service.domain.timeline import (
    check_pace,
    next_rate,
    pace_checks,
    place_overlays,
    place_segments,
    plan_residual,
    slot_ms,
    speech_target_ms,
)
from tests.support.data import GAGAR_EXAMPLE


def example() -> JobSpec:
    return parse_script(GAGAR_EXAMPLE.read_text(encoding="utf-8"))


def test_example_fits_at_a_normal_pace() -> None:
    spec = example()
    assert check_pace(spec) == []
    paces = [c.pace for c in pace_checks(spec)]
    assert all(3.5 < p < 7.5 for p in paces), paces


def test_qualifiers_share_the_window_of_the_shot_that_mentions_them() -> None:
    spec = example()
    slots = place_segments(spec, [slot_ms(spec, i) for i in range(3)])
    assert [(s.start_ms, s.end_ms) for s in slots] == [(0, 20000), (20000, 48000), (48000, 61000)]
    overlays = place_overlays(spec, slots)
    assert [(o.start_ms, o.end_ms) for o in overlays] == [
        (70000 + 3000 * k, 73000 + 3000 * k) for k in range(5)
    ]
    assert [o.text for o in overlays] == spec.qualifiers


def test_without_such_shot_qualifiers_spread_over_the_last_segment() -> None:
    spec = example().model_copy(update={"shots": []})
    slots = place_segments(spec, [slot_ms(spec, i) for i in range(3)])
    overlays = place_overlays(spec, slots)
    assert overlays[0].start_ms == 48000 and overlays[-1].end_ms == 61000
    assert len({o.end_ms - o.start_ms for o in overlays}) <= 2  # even shares, up to rounding


def test_explicit_overlays_keep_their_times() -> None:
    spec = JobSpec.model_validate(
        {
            "segments": [{"text": "好", "seconds": 3}],
            "overlays": [{"text": "注", "start": 0.5, "end": 2.25}],
        }
    )
    assert [(o.start_ms, o.end_ms) for o in place_overlays(spec, place_segments(spec, [3000]))] == [
        (500, 2250)
    ]


def _fast(policy: str) -> JobSpec:
    text = "这是一段非常非常长的文字" * 4  # 48 syllables in 4 s: 12/s
    return JobSpec(
        segments=[Segment(text=text, seconds=4), Segment(text="好", seconds=1)],
        fit=FitOptions(on_overflow=policy),
    )


def test_overflow_fail_names_segment_length_pace_and_limit() -> None:
    with pytest.raises(PaceOverflowError) as err:
        check_pace(_fast("fail"))
    msg = str(err.value)
    assert (
        "segment 1" in msg and "48 syllables" in msg and "12.00 syllables/s" in msg and "7.5" in msg
    )


def test_overflow_squeeze_warns_and_keeps_the_slot() -> None:
    spec = _fast("squeeze")
    assert "squeezed" in check_pace(spec)[0].message
    assert slot_ms(spec, 0) == 4000


def test_overflow_extend_pushes_later_segments_back() -> None:
    spec = _fast("extend")
    assert "extended" in check_pace(spec)[0].message
    lengths = [slot_ms(spec, i) for i in range(2)]
    assert lengths[0] == 6401  # 48 / 7.5 s, rounded up
    slots = place_segments(spec, lengths)
    assert slots[1].start_ms == lengths[0]


def test_explicit_start_overlap_is_an_error() -> None:
    spec = JobSpec(segments=[Segment(text="一", seconds=5), Segment(text="二", seconds=2, start=3)])
    with pytest.raises(ScriptError, match="segment 2: start 3 s overlaps"):
        place_segments(spec, [5000, 2000])


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(100, 60000), st.one_of(st.none(), st.integers(0, 30000))),
        min_size=1,
        max_size=8,
    )
)
def test_segments_occupy_exactly_their_slots_in_order(items: list[tuple[int, int | None]]) -> None:
    segs, cursor, lengths = [], 0, []
    for length, gap in items:
        start = None if gap is None else (cursor + gap) / 1000
        segs.append(Segment(text="字", seconds=length / 1000, start=start))
        cursor = (cursor + gap if gap is not None else cursor) + length
        lengths.append(length)
    spec = JobSpec(segments=segs)
    slots = place_segments(spec, lengths)
    assert [s.end_ms - s.start_ms for s in slots] == lengths
    assert all(a.end_ms <= b.start_ms for a, b in itertools.pairwise(slots))


@settings(deadline=None)
@given(st.integers(1, 12), st.integers(0, 100), st.integers(1, 100))
def test_qualifiers_tile_their_window(n: int, a: int, width: int) -> None:
    spec = JobSpec(
        segments=[Segment(text="字", seconds=1)],
        qualifiers=[f"q{i}" for i in range(n)],
        shots=[Shot(index=1, name="风险卡", start=a, end=a + width, elements="限定语叠加")],
    )
    overlays = place_overlays(spec, place_segments(spec, [1000]))
    assert overlays[0].start_ms == a * 1000 and overlays[-1].end_ms == (a + width) * 1000
    assert all(x.end_ms == y.start_ms for x, y in itertools.pairwise(overlays))
    sizes = [o.end_ms - o.start_ms for o in overlays]
    assert max(sizes) - min(sizes) <= 1


@settings(deadline=None)
@given(st.integers(200, 120000), st.integers(500, 120000), st.floats(-1.6, -0.4))
def test_rate_search_converges_or_stops_at_a_bound(natural: int, slot: int, k: float) -> None:
    """Whatever the engine's rate/duration curve (duration ~ rate**k), the search ends within
    3 passes in the band up to 3 % under the target (never over it: over needs a stretch),
    or at the fastest rate, or at max_slowdown."""
    fit = FitOptions()
    target = speech_target_ms(slot, fit)
    tried = [(1.0, natural)]
    for _ in range(3):
        rate = next_rate(tried, target, fit, 0.5, 3.0)
        if rate is None:
            break
        assert fit.max_slowdown <= rate <= 3.0
        tried.append((rate, round(natural * rate**k)))
    rate, got = tried[-1]
    assert (
        0.97 * target <= got <= target
        or rate in (3.0, fit.max_slowdown)
        or (got < target and rate <= fit.max_slowdown + 0.005)
    ), tried


def test_residual_stretch_is_bounded_unless_squeezed() -> None:
    fit = FitOptions(max_stretch=0.1)
    assert plan_residual(0, 900, 1000, fit, False).ratio == 1.0
    assert plan_residual(0, 1050, 1000, fit, False).ratio == pytest.approx(1000 / 1050)
    with pytest.raises(ScriptError, match="segment 1"):
        plan_residual(0, 1500, 1000, fit, False)
    assert plan_residual(0, 1500, 1000, fit, True).warnings

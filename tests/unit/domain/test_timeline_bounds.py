"""The job's timeline is bounded at the door: every time is finite, and the whole timeline
(segments after the overflow policy, overlays, the qualifiers' shot) ends by the limit."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain import timeline
from service.domain.errors import ScriptError
from service.domain.spec import MAX_TIME, spec_from_data
from service.domain.text import syllables
from service.domain.timeline import (
    check_pace,
    check_timeline,
    place_segments,
    slot_ms,
    slots_ms,
)

HOUR = 3600.0


def spec(**kw: Any) -> Any:
    return spec_from_data({"segments": [{"text": "好", "seconds": 2}], **kw})


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"segments": [{"text": "好", "seconds": 2, "start": 1e308}]}, "segment 1 start"),
        ({"segments": [{"text": "好", "seconds": 2, "start": float("inf")}]}, "segment 1 start"),
        (
            {
                "segments": [{"text": "好", "seconds": 2}],
                "overlays": [{"text": "注", "start": 0, "end": 1e308}],
            },
            "overlay 1 end",
        ),
        (
            {
                "segments": [{"text": "好", "seconds": 2}],
                "shots": [{"index": 1, "start": 0, "end": 1e308}],
            },
            "shot 1 end",
        ),
    ],
)
def test_times_beyond_a_day_are_refused_by_the_spec(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(ScriptError, match=f"less than or equal to {MAX_TIME:g}") as err:
        spec_from_data(data)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("data", "needle", "end"),
    [
        # 7 x 600 s back to back: the 7th segment ends at 4200 s.
        ({"segments": [{"text": "好", "seconds": 600}] * 7}, "segment 7 seconds", 4200),
        (
            {
                "segments": [
                    {"text": "好", "seconds": 2},
                    {"text": "好", "seconds": 2, "start": HOUR},
                ]
            },
            "segment 2 start",
            3602,
        ),
        (
            {
                "segments": [{"text": "好", "seconds": 2}],
                "overlays": [
                    {"text": "注", "start": 1, "end": 2},
                    {"text": "注", "start": 10, "end": 4000},
                ],
            },
            "overlay 2 end",
            4000,
        ),
        (
            {
                "segments": [{"text": "好", "seconds": 2}],
                "qualifiers": ["甲"],
                "shots": [
                    {"index": 1, "start": 0, "end": 9000, "name": "远景"},
                    {"index": 2, "start": 0, "end": 5000, "elements": "限定语"},
                ],
            },
            "shot 2 end (the qualifiers' window)",
            5000,
        ),
        (
            # The overflow policy lengthens the slot: 60 syllables at 7.5/s need 8 s, not 1.
            {
                "segments": [
                    {"text": "好", "seconds": 2, "start": HOUR - 5},
                    {"text": "字" * 60, "seconds": 1},
                ],
                "fit": {"on_overflow": "extend"},
            },
            "segment 2 seconds",
            3605.001,
        ),
    ],
)
def test_a_timeline_past_the_limit_names_the_field(
    data: dict[str, Any], needle: str, end: float
) -> None:
    with pytest.raises(ScriptError) as err:
        check_timeline(spec_from_data(data), HOUR)
    msg = str(err.value)
    assert msg.startswith(needle + ":"), msg
    assert f"ends at {end:g} s, past the timeline limit of 3600 s" in msg


def test_a_timeline_at_the_limit_passes() -> None:
    s = spec_from_data(
        {
            "segments": [{"text": "好", "seconds": 600}] * 5
            + [{"text": "好", "seconds": 2, "start": HOUR - 2}],
            "overlays": [{"text": "注", "start": 0, "end": HOUR}],
        }
    )
    slots = check_timeline(s, HOUR)
    assert slots[-1].end_ms == 3_600_000
    assert slots == place_segments(s, slots_ms(s))
    assert slots_ms(s) == [slot_ms(s, i) for i in range(len(s.segments))]


def test_planning_counts_each_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job is planned at the door, then again by each segment task, which also asks for
    its own slot: the texts' syllables are counted n times in all, not n x n."""
    n = 300
    s = spec_from_data(
        {"segments": [{"text": f"第{i}段，评分员对轨迹排序。", "seconds": 3} for i in range(n)]}
    )
    calls = 0

    def counting(text: str, language: str) -> float:
        nonlocal calls
        calls += 1
        return syllables(text, language)

    monkeypatch.setattr(timeline, "syllables", counting)
    timeline._syllables.cache_clear()
    for _ in range(3):  # the door, then segment tasks in the same worker process
        check_pace(s)
        check_timeline(s, HOUR)
        assert [slot_ms(s, i) for i in range(n)] == [3000] * n
    assert calls == n

"""A job's warnings: each said once, a fallback naming the segments it spoke."""

from __future__ import annotations

from service.domain.notices import fell_back, job_warnings, segment_ranges, warning


def test_segments_are_named_as_ranges() -> None:
    assert segment_ranges([4]) == "segment 4"
    assert segment_ranges([1, 2, 3, 5, 7, 8]) == "segments 1-3, 5, 7-8"


def test_a_fallback_shared_by_segments_is_said_once_naming_them() -> None:
    down = fell_back("edge: cannot reach the service (connection refused)", "espeak", "v")
    busy = fell_back("edge: HTTP 429: Too Many Requests", "espeak", "v")
    per_segment = [
        (0, [down]),
        (
            1,
            [
                down,
                warning(
                    "fit.stretched", "segment 2: time-stretched 1.30x, over fit.max_stretch", 2
                ),
            ],
        ),
        (2, [busy]),
        (3, [down]),
    ]
    assert [(w.code, w.message, w.segment) for w in job_warnings(per_segment)] == [
        ("engine.fallback", "edge: cannot reach the service (connection refused); segments 1-2, "
         "4 fell back to espeak voice v", None),
        ("fit.stretched", "segment 2: time-stretched 1.30x, over fit.max_stretch", 2),
        ("engine.fallback", "edge: HTTP 429: Too Many Requests; segment 3 fell back to espeak "
         "voice v", 3),
    ]  # fmt: skip
    assert [w.message for w in job_warnings([(0, [down, down])])] == [
        "edge: cannot reach the service (connection refused); segment 1 fell back to espeak voice v"
    ]

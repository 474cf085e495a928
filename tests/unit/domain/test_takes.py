"""Take parts and flags (pure): which names are takes, and each segment's take in the plan."""

from __future__ import annotations

import pytest

from service.domain.errors import TakeError
from service.domain.takes import is_take, kept_takes, plan_takes, take_flags, take_segment


def test_take_names() -> None:
    assert is_take("take") and is_take("take-1") and is_take("take-12")
    assert not is_take("take-0") and not is_take("take-01") and not is_take("takes")
    assert take_segment("take-3") == 3 and take_segment("take") is None


def test_each_segment_gets_its_take_or_none() -> None:
    plan = plan_takes(3, {"take-3": 1200, "take-1": 900})
    assert [t.input if t else None for t in plan] == ["take-1", None, "take-3"]
    whole = plan_takes(2, {"take": 5000})
    assert all(t is not None and t.whole and t.length_ms == 5000 for t in whole)
    assert plan_takes(2, {}) == []


@pytest.mark.parametrize(
    ("takes", "loc", "said"),
    [
        ({"take-4": 1}, ("take-4",), "take-4: no segment 4 (the script has 3)"),
        ({"take": 1, "take-2": 1}, ("take",), "take: one take of the whole script"),
    ],
)
def test_takes_that_name_no_segment_are_refused(
    takes: dict[str, int], loc: tuple[str, ...], said: str
) -> None:
    with pytest.raises(TakeError) as err:
        plan_takes(3, takes)
    assert err.value.loc == loc and err.value.message.startswith(said)


def test_take_flags() -> None:
    assert take_flags(["2=b.wav", "1=a.wav"]) == {"take-2": "b.wav", "take-1": "a.wav"}
    assert take_flags(["whole.wav"]) == {"take": "whole.wav"}
    assert take_flags(["x=y.wav"]) == {"take": "x=y.wav"}  # a file name with '='


def test_a_rerender_keeps_takes_of_unchanged_text() -> None:
    own = plan_takes(3, {"take-1": 1, "take-3": 1})
    assert kept_takes(own, ["a", "b", "c"], ["a", "B", "c"]) == ["take-1", "take-3"]
    assert kept_takes(own, ["a", "b", "c"], ["A", "b"]) == []
    whole = plan_takes(2, {"take": 1})
    assert kept_takes(whole, ["a", "b"], ["a", "b"]) == ["take"]
    assert kept_takes(whole, ["a", "b"], ["a", "x"]) == []
    assert kept_takes([], ["a"], ["a"]) == []

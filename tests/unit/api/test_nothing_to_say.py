"""A segment with nothing to say (emoji only, symbols only) is refused at the door, naming
the segment (HTTP 422), instead of failing inside an engine once the job runs (espeak-ng:
"exit 0 but no audio"; kokoro: no tokens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.domain.errors import InputError
from service.domain.speech import check_speakable
from tests.support.fleet import make_fleet


@pytest.mark.parametrize("text", ["😀😀", "→ ★ ✦", "……！？", "  "])
def test_nothing_to_say_names_the_segment(text: str) -> None:
    with pytest.raises(InputError, match="segment 2 has nothing to say") as caught:
        check_speakable(["你好。", text, "OK"])
    assert caught.value.loc == ("segments", 1, "text")


@pytest.mark.parametrize("text", ["好", "R2", "3", "ok 😀"])
def test_a_letter_a_digit_or_a_hanzi_is_something_to_say(text: str) -> None:
    check_speakable([text])


def test_a_recorded_take_speaks_for_its_segment() -> None:
    check_speakable(["你好。", "😀"], recorded={1})


def test_the_api_refuses_it_with_422(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)
    body = {
        "language": "zh",
        "segments": [{"text": "你好。", "seconds": 2}, {"text": "😀😀", "seconds": 2}],
        "options": {"engine": "espeak"},
    }
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=body)
    assert r.status_code == 422, r.text
    assert "segment 2 has nothing to say" in r.text
    assert fleet.work() == 0  # nothing was queued

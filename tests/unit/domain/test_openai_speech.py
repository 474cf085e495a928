"""OpenAI's speech request read field by field (the first problem names its field, in
OpenAI's error codes), the input cut into the sentences spoken one by one, and each
character's time from the words' (ElevenLabs' alignment)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.openai_speech import (
    SpeechError,
    TimedWord,
    character_times,
    read_speech,
    sentences,
)

OK: dict[str, Any] = {"model": "kokoro", "input": "Hello.", "voice": "alloy"}


def test_a_plain_request_reads_with_openais_defaults() -> None:
    ask = read_speech(OK, 4096)
    assert (ask.engine, ask.voice, ask.response_format, ask.speed) == (
        "kokoro",
        "alloy",
        "mp3",
        1.0,
    )
    assert not ask.instructions


@pytest.mark.parametrize("model", ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"])
def test_openais_model_names_are_auto(model: str) -> None:
    assert read_speech({**OK, "model": model}, 4096).engine == "auto"


@pytest.mark.parametrize(
    ("change", "param", "code"),
    [
        ({"model": "tts-9"}, "model", "model_not_found"),
        ({"input": ""}, "input", "invalid_value"),
        ({"input": 5}, "input", "invalid_value"),
        ({"input": "x" * 11}, "input", "string_above_max_length"),
        ({"voice": None}, "voice", "invalid_value"),
        ({"response_format": "ogg"}, "response_format", "invalid_value"),
        ({"speed": "fast"}, "speed", "invalid_type"),
        ({"speed": True}, "speed", "invalid_type"),
        ({"speed": 4.5}, "speed", "invalid_value"),
        ({"speed": 0.1}, "speed", "invalid_value"),
    ],
)
def test_a_bad_field_is_named(change: dict[str, Any], param: str, code: str) -> None:
    with pytest.raises(SpeechError) as bad:
        read_speech({**OK, **change}, 10)
    assert (bad.value.param, bad.value.code, bad.value.status) == (param, code, 400)
    body = bad.value.body()["error"]
    assert set(body) == {"message", "type", "param", "code"} and param in body["message"]


def test_speed_outside_narrates_range_is_clamped_and_instructions_are_noted() -> None:
    assert read_speech({**OK, "speed": 0.25}, 99).speed == 0.5
    assert read_speech({**OK, "speed": 4.0}, 99).speed == 2.0
    assert read_speech({**OK, "instructions": "cheerful"}, 99).instructions


def test_sentences_split_at_their_marks_in_both_languages() -> None:
    text = "今天天气很好。我们去公园！Then home. Done"
    assert [text[a:b].strip() for a, b in sentences(text)] == [
        "今天天气很好。",
        "我们去公园！",
        "Then home.",
        "Done",
    ]


def test_a_long_sentence_is_cut_at_a_clause_mark_within_the_limit() -> None:
    text = "one, two, three, four, five, six"
    spans = sentences(text, limit=12)
    assert all(b - a <= 12 for a, b in spans)
    assert "".join(text[a:b] for a, b in spans) == text


@given(st.text(alphabet="ab 。,.!\n中文", max_size=300))
def test_sentences_cover_every_spoken_character_in_order(text: str) -> None:
    spans = sentences(text, limit=40)
    assert all(a < b and b - a <= 40 for a, b in spans)
    assert all(b <= c for (_, b), (c, _) in itertools.pairwise(spans))
    kept = "".join(text[a:b] for a, b in spans)
    assert [c for c in kept if not c.isspace()] == [c for c in text if not c.isspace()]


def test_character_times_share_a_words_time_and_hold_between_words() -> None:
    starts, ends = character_times("ab, cd", [TimedWord(0, 2, 0.0, 0.4), TimedWord(4, 6, 0.6, 1.0)])
    assert starts == [0.0, 0.2, 0.4, 0.4, 0.6, 0.8]
    assert ends == [0.2, 0.4, 0.4, 0.4, 0.8, 1.0]

"""What the kokoro engine gives the model (service/adapters/tts/kokoro_text.py): narrate's
pinyin readings as the symbols Kokoro v1.0 was trained on, letters and English words, and the
calls of at most 510 tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.adapters.tts.kokoro_text import (
    LETTERS,
    MAX_TOKENS,
    chunks,
    from_espeak,
    say,
    syllable,
    units,
)
from service.domain.speech import front_end

GOLDEN = Path(__file__).parents[3] / "data" / "kokoro_zh_syllables.tsv"


def golden() -> list[tuple[str, str]]:
    rows = GOLDEN.read_text(encoding="utf-8").splitlines()
    return [tuple(r.split("\t")) for r in rows if not r.startswith("#")]  # type: ignore[misc]


def test_every_syllable_is_what_misaki_gives_kokoro() -> None:
    """All 1549 tone-number syllables of pypinyin's dictionary, against misaki 0.9.4's zh G2P
    (the table was made with misaki itself: its transcription code, Kokoro v1.0's mode)."""
    rows = golden()
    assert len(rows) > 1500
    wrong = [(s, want, syllable(s)) for s, want in rows if syllable(s) != want]
    assert wrong == []


@pytest.mark.parametrize(
    ("syl", "want"),
    [("lü4", "ly↘"), ("nüe4", "nɥe↘"), ("huar1", "xwa→ɚ"), ("er2", "ɚ↗"), ("ng5", "ŋ")],
)
def test_syllables_narrate_writes_that_pypinyin_spells_otherwise(syl: str, want: str) -> None:
    assert syllable(syl) == want


def test_narrates_readings_reach_the_model() -> None:
    """The front-end's choices (行 after a number is háng, 调到 is tiáo) are what is said."""
    spoken = front_end("写了 50 行，音量调到三。", "zh", "pinyin", {}, speech_tools()).text
    said = "".join(s.gap + s.phonemes for s in say(units(spoken), {}))
    assert "xa↗ŋ" in said and "ʨʰiau" not in said and "tʰjau↗" in said
    assert said.count(",") == 1 and said.endswith(".")


def test_letters_and_english_words() -> None:
    found = units("yong4 G R P O zuo4 rollout , eh P I .")
    kinds = [u.kind for u in found]
    assert kinds == ["syl", *["letter"] * 4, "syl", "word", "pause", *["letter"] * 3, "pause"]
    said = say(found, {"rollout": "ɹˈOlWt"})
    text = "".join(s.gap + s.phonemes for s in said)
    assert text == "jʊ↘ŋ ʤˈi ˈɑɹ pˈi ˈO ʦwo↘ ɹˈOlWt, ˈA pˈi ˈI."
    # A word's syllables are joined, as misaki wrote Kokoro's training text; words are
    # spaced, so a neutral tone does not run into the next word (lɤu↓ for 了 五).
    assert "".join(s.gap + s.phonemes for s in say(units("le5  wu3  "), {})) == "lɤ u↓"
    assert "".join(s.gap + s.phonemes for s in say(units("ni3 hao3  "), {})) == "ni↓xau↓"


def test_the_front_ends_words_are_the_models_words() -> None:
    """jieba's words reach the model as misaki spaced them: 长上下文 | 推理 | 最 | 贵."""
    lexicon = load_lexicon(Path(__file__).parents[4] / "voices" / "lexicon" / "zh.tsv")
    spoken = front_end("长上下文推理最贵", "zh", "pinyin", lexicon, speech_tools()).text
    said = "".join(s.gap + s.phonemes for s in say(units(spoken), {}))
    assert said == "ꭧʰa↗ŋʂa↘ŋɕja↘wə↗n tʰwei→li↓ ʦwei↘ kwei↘"
    assert set(LETTERS) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_function_words_are_reduced_not_stressed_alone() -> None:
    said = say(units("the rollout of a cache"), {"rollout": "ɹˈOlWt", "cache": "kˈæʃ"})
    assert "".join(s.gap + s.phonemes for s in said) == "ðə ɹˈOlWt əv ɐ kˈæʃ"


@pytest.mark.parametrize(
    ("ipa", "british", "want"),
    [
        ("ɹˈo^ʊla^ʊt", False, "ɹˈOlWt"),
        ("d^ʒˈiːpˌiːjˈuː", False, "ʤˈipˌijˈu"),
        ("kˈæʃ", False, "kˈæʃ"),
        ("hˈɪ^ɹ", False, "hˈɪɹ"),
        ("bˈe^ɪsla^ɪn", True, "bˈAslIn"),
        ("ˈɪnfɚɹəns", False, "ˈɪnfəɹəns"),  # inference: one ɹ, as misaki's lexicon says it
        ("mˈɛmɚɹi", False, "mˈɛməɹi"),
        ("ˈɛɹɚ", False, "ˈɛɹəɹ"),
    ],
)
def test_espeak_ipa_as_kokoro_symbols(ipa: str, british: bool, want: str) -> None:
    assert from_espeak(ipa, british) == want


def test_pauses_are_never_first_or_doubled() -> None:
    said = say(units(", . ni3 , , hao3 ..."), {})
    assert "".join(s.gap + s.phonemes for s in said) == "ni↓, xau↓…"


def tokens(chunk: list) -> int:  # type: ignore[type-arg]
    return len("".join(s.gap + s.phonemes for s in chunk).lstrip())


@given(st.lists(st.sampled_from(["zhong1", "wen2", "G", "rollout", ",", "."]), max_size=600))
def test_calls_stay_under_510_tokens_and_keep_every_unit(words: list[str]) -> None:
    said = say(units(" ".join(words)), {"rollout": "ɹˈOlWt"})
    calls = chunks(said)
    assert all(tokens(c) <= MAX_TOKENS for c in calls)
    assert [s for c in calls for s in c] == said


def test_a_full_call_ends_after_a_sentence_then_a_clause() -> None:
    text = "ni3 hao3 . " * 30 + "zhong1 wen2 , " * 40
    calls = chunks(say(units(text), {}))
    assert len(calls) > 1
    assert calls[0][-1].phonemes == "."
    long_clause = "zhong1 wen2 , " * 120
    calls = chunks(say(units(long_clause), {}))
    assert all(c[-1].phonemes == "," for c in calls[:-1])

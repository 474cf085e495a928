"""The 多音字 test's pure part: which characters are tested, where the transcript has them,
the forced transcripts, and the verdict on their scores."""

from __future__ import annotations

from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.config import ROOT
from service.domain.polyphones import (
    MARGIN,
    Polyphone,
    forced_texts,
    heard_at,
    misread,
    polyphones,
    read_chars,
)
from service.domain.speech import front_end

TOOLS = speech_tools()
LEX = load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")


def meant(text: str):  # type: ignore[no-untyped-def]
    return front_end(text, "zh", "pinyin", LEX, TOOLS)


def test_a_lexicon_entry_gives_each_character_its_own_syllable() -> None:
    spoken = meant("他在这一行干了十年")
    got = {r.char: r.syllable for r in read_chars(spoken)}
    assert got["行"] == "hang2"  # 一行 yì háng, a shipped entry: one piece of two characters
    for r in read_chars(spoken):
        assert spoken.text[r.spot : r.spot + len(r.syllable)] == r.syllable


def test_only_the_table_s_characters_are_tested_with_their_other_reading() -> None:
    found = polyphones(meant("他在银行干了十年，可执行。"))
    assert [(p.char, p.meant, p.others) for p in found] == [
        ("行", "hang2", ("xing2",)),
        ("行", "xing2", ("hang2",)),
    ]  # 他 (tuó), 干 (gān), 了 (liǎo) are polyphones too, but not tested: see READINGS


def test_the_transcript_s_character_is_found_through_a_lexicon_entry() -> None:
    text = "他在这一行干了十年"
    heard = front_end("他在这一行干20年", "zh", "pinyin", {}, TOOLS)
    at = text.index("行")
    assert heard_at(meant(text), heard, at) == (4, "xing")  # the front-end's guess for 一行
    # without the lexicon: the same glyph's reading says nothing (the audio decides)
    other = front_end("他在这一形干了十年", "zh", "pinyin", {}, TOOLS)
    assert heard_at(meant(text), other, at) == (4, "xing")  # heard outright the other way
    gone = front_end("他在这一干了十年", "zh", "pinyin", {}, TOOLS)
    assert heard_at(meant(text), gone, at) is None


def test_forced_transcripts_put_a_single_reading_homophone_of_each_reading() -> None:
    p = Polyphone(1, "行", "hang2", ("xing2",))
    homophone = {"hang2": "航", "xing2": "型"}.get
    assert forced_texts("银行的", 1, p, homophone) == [("hang2", "银航的"), ("xing2", "银型的")]
    assert forced_texts("银行的", 1, p, {"hang2": "航"}.get) is None


def test_another_reading_must_win_by_the_margin_to_be_reported() -> None:
    p = Polyphone(1, "行", "hang2", ("xing2",))
    assert misread(p, ["hang2", "xing2"], [-40.0, -40.0 + MARGIN / 2]) is None
    diff = misread(p, ["hang2", "xing2"], [-40.0, -30.0])
    assert diff is not None and (diff.said, diff.heard) == ("行 (hang2)", "行 (xing2)")

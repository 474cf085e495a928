"""Readings that depend on the neighbouring words (issue 32): 一 and 不 change tone by the next
syllable, across word edges too (每一段 was read měi yī duàn, 一点零二 yì diǎn, 同一个 yī gè),
得 after a verb is the neutral particle (说得很直白 was dé), and 处 as a place is chù."""

from __future__ import annotations

import pytest

from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.domain.speech import front_end
from service.domain.speech.zh_context import Word, apply
from voices import DIR

TOOLS = speech_tools()
LEXICON = load_lexicon(DIR / "lexicon" / "zh.tsv")


def zh(text: str) -> str:
    return " ".join(front_end(text, "zh", "pinyin", LEXICON, TOOLS).text.split())


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("每一段打分", "mei3 yi2 duan4 da3 fen1"),  # before a fourth tone: yí
        ("这一步", "zhe4 yi2 bu4"),
        ("同一个模型", "tong2 yi2 ge4"),
        ("一种方法", "yi4 zhong3"),  # before the other tones: yì
        ("有一点慢", "you3 yi4 dian3"),  # a little, not a decimal
        ("看一看", "kan4 yi5 kan4"),  # between a repeated verb: neutral
    ],
)
def test_yi_takes_its_tone_from_the_next_syllable(text: str, said: str) -> None:
    assert said in zh(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Pro 1.02T 做", "yi1 dian3 ling2 er4"),  # a digit: yī
        ("第一步", "di4 yi1 bu4"),  # an ordinal
        ("统一管理", "tong3 yi1 guan2"),  # the end of a word
        ("三分之一。", "san1 fen1 zhi1 yi1"),
        ("128 段", "yi4 bai3 er4 shi2 ba1"),  # 一百: yì before bǎi, as said
    ],
)
def test_yi_stays_yi1_as_a_digit_an_ordinal_and_at_a_words_end(text: str, said: str) -> None:
    assert said in zh(text)


def test_bu_before_a_fourth_tone_and_in_a_question() -> None:
    assert "bu2 shi4 yong4" in zh("这里不适用")  # 不 | 适用: across a word edge
    assert "bu4 deng3 yu2" in zh("通过测试 ≠ 质量好")
    assert "shi4 bu5 shi4" in zh("是不是")


def test_de_after_a_verb_before_a_degree_word_is_neutral() -> None:
    assert "shuo1 de5 hen3 zhi2 bai2" in zh("说得很直白")
    assert "de2 dao4" in zh("得到结果")


def test_chu_as_a_place() -> None:
    assert "chu1 chu4" in zh("连同出处")


def test_a_fixed_reading_is_never_changed() -> None:
    """A lexicon entry or a job's pronunciation is said as written, whatever follows."""
    words = [Word("一", ("yi1",), fixed=True), Word("段", ("duan4",))]
    assert apply(words) == [("yi1",), ("duan4",)]

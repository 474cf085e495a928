"""The speech check's comparison: readings, not glyphs; an aligned diff; the flag."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.config import ROOT
from service.domain.speech import Lexicon, front_end, parse_entries
from service.domain.speech_compare import align, compare, flagged, named

TOOLS = speech_tools()
ZH_LEXICON = load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")


def check(said: str, heard: str, language: str = "zh", lexicon: Lexicon | None = None):  # type: ignore[no-untyped-def]
    lex = ZH_LEXICON if lexicon is None and language == "zh" else (lexicon or {})
    meant = front_end(said, language, "pinyin", lex, TOOLS)
    got = front_end(heard, language, "pinyin", {}, TOOLS)
    return compare(meant, got, language)


@pytest.mark.parametrize(
    ("said", "heard"),
    [
        ("压到2比特？", "压到两比特"),  # a number and its reading
        ("增长了3.5%", "增长了百分之三点五"),
        ("再叠 GRPO 做优化", "再叠G R P O做优化"),  # an acronym spelled, however written
        ("代码 Agent 的训练", "代码agent的训练"),
        ("2026年9月30日", "二零二六年九月三十日"),
    ],
)
def test_the_same_reading_written_otherwise_is_no_error(said: str, heard: str) -> None:
    result = check(said, heard)
    assert result.error_rate == 0.0 and result.diff == []


def test_a_users_pronunciation_heard_as_its_homophone_is_no_mismatch() -> None:
    shan = {**ZH_LEXICON, **parse_entries({"单": "shàn"})}
    assert check("单先生来了", "善先生来了", lexicon=shan).error_rate == 0.0
    plain = check("单先生来了", "善先生来了")  # without the entry, 单 is dān: heard otherwise
    assert plain.diff[0].kind == "changed" and (plain.diff[0].said, plain.diff[0].heard) == (
        "单",
        "善",
    )


def test_a_tone_is_not_a_mismatch_but_another_syllable_is() -> None:
    assert check("他买了书", "他卖了书").error_rate == 0.0  # mǎi / mài
    assert check("他买了书", "他拿了书").error_rate == 0.25


def test_a_dropped_english_word_is_named_and_flagged_in_a_long_segment() -> None:
    said = "先做 dynamic sampling，只保留同时含通过与失败轨迹的组，再把所有轨迹放进共享工作空间。"
    heard = "先做dynamic只保留同时含通过与失败轨迹的组再把所有轨迹放进共享工作空间"
    result = check(said, heard)
    assert result.error_rate < 0.1  # the rate alone would miss it
    assert [(d.kind, d.said) for d in result.diff] == [("missing", "sampling")]
    assert flagged(result, "zh")
    assert named(result.diff) == "missing “sampling”"


def test_a_clause_cut_is_one_missing_run_with_the_scripts_own_text() -> None:
    result = check("今天的天气很好，我们一起去公园散步吧。", "今天的天气很好")
    assert [(d.kind, d.said) for d in result.diff] == [("missing", "我们一起去公园散步吧")]
    assert result.longest_missing == 10 and flagged(result, "zh")


def test_english_word_error_rate_and_diff_kinds() -> None:
    result = check(
        "The GRPO model scored 3.5% in 2026.",
        "The G.R.P.O. model scored three point five percent in 2026 today.",
        "en",
    )
    assert [(d.kind, d.heard) for d in result.diff] == [("extra", "today")]
    assert result.measure == "wer" and result.errors == 1
    changed = check(
        "The quick brown fox jumps over the lazy dog.",
        "The quick brown fox jump so that the lazy dog.",
        "en",
    )
    assert changed.diff[0].kind == "changed" and changed.diff[0].said == "jumps over"
    assert changed.error_rate == pytest.approx(3 / 9, abs=1e-4) and flagged(changed, "en")


def _distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


@given(
    st.lists(st.sampled_from("abcd"), max_size=12), st.lists(st.sampled_from("abcd"), max_size=12)
)
def test_the_alignment_is_a_minimal_edit_script_that_rebuilds_the_hypothesis(
    ref: list[str], hyp: list[str]
) -> None:
    ops = align(ref, hyp)
    assert sum(op != "=" for op, _, _ in ops) == _distance(ref, hyp)
    assert [hyp[j] for op, _, j in ops if op != "D"] == hyp
    assert [ref[i] for op, i, _ in ops if op != "I"] == ref
    assert all(ref[i] == hyp[j] for op, i, j in ops if op == "=")

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.text import (
    CLAUSE_END,
    comparable,
    display_len,
    single_word,
    split_phrases,
    syllables,
    tokenize,
    wrap,
)

_pieces = st.one_of(
    st.text(alphabet="代码测试通过质量奖励优势排序轨迹模型显存的是在", min_size=1, max_size=10),
    st.sampled_from(
        [
            "GRPO",
            "sum-preserving",
            "baseline",
            "MiMo",
            "1.02T",
            "310B",
            "rollout",
            "dynamic sampling",
        ]
    ),
    st.sampled_from(["，", "。", "；", "、", "——", " ", ": ", ", ", "? "]),
)
texts = st.lists(_pieces, min_size=1, max_size=25).map("".join).filter(lambda t: bool(t.strip()))
LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'’.+\-/%]*[A-Za-z0-9_%+]|[A-Za-z0-9]")


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from([16, 42, 10]))
def test_phrases_partition_the_text(text: str, limit: int) -> None:
    spans = split_phrases(text, limit)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a < b for a, b in spans)
    assert all(x[1] == y[0] for x, y in itertools.pairwise(spans))
    for a, b in spans:
        piece = text[a:b]
        words = [t for t in tokenize(piece) if t.kind != "space"]
        # Over the limit only when one word alone is longer than the limit.
        assert display_len(piece) <= limit or any(len(w.text) > limit // 2 for w in words)


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from([16, 42]))
def test_wrap_keeps_words_whole_and_lines_short(text: str, limit: int) -> None:
    lines = wrap(text, limit, 2)
    if lines is None:
        assert display_len(text) > limit
        return
    assert 1 <= len(lines) <= 2
    assert comparable("".join(lines)) == comparable(text)
    for line in lines:
        assert line == line.strip() and line
        assert display_len(line) <= limit or single_word(line)
    # A break never leaves punctuation at the start of the next line.
    assert all(line[0] not in CLAUSE_END - {"."} for line in lines[1:])
    # Every Latin word of the text appears whole on one line.
    for word in LATIN.findall(text):
        assert any(word in line for line in lines), word


def test_wrap_prefers_punctuation_and_word_gaps() -> None:
    assert wrap("只保留同时含通过与失败轨迹的 rollout 组", 16) == [
        "只保留同时含通过与失败轨迹的",
        "rollout 组",
    ]
    assert wrap("低排名 downweight,按比例 rescale", 16) == ["低排名 downweight,", "按比例 rescale"]
    assert wrap("a" * 5, 16) == ["aaaaa"]


def test_syllable_estimates() -> None:
    assert syllables("代码测试", "zh") == 4
    assert syllables("GRPO", "zh") == 4  # spelled out
    assert syllables("sampling", "en") == 2
    assert syllables("1.02T", "zh") == 5  # one point zero two T


def pairs(run: str) -> list[str]:
    """A stand-in dictionary segmenter: two-character words."""
    return [run[i : i + 2] for i in range(0, len(run), 2)]


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from([16, 10]))
def test_with_a_segmenter_no_break_falls_inside_a_word(text: str, limit: int) -> None:
    words = {(t.start, t.end) for t in tokenize(text, pairs) if t.kind == "cjk" and len(t.text) > 1}
    inside = {i for a, b in words for i in range(a + 1, b)}
    spans = split_phrases(text, limit, pairs)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert not {a for a, _ in spans} & inside
    lines = wrap(text, limit, 2, pairs)
    if lines is not None:
        assert comparable("".join(lines)) == comparable(text)
        # Each line is a whole number of words: re-joining never splits a pair.
        offset = 0
        for line in lines:
            at = text.index(line, offset)
            assert at not in inside and at + len(line) not in inside
            offset = at + len(line)


def test_real_segmenter_keeps_chinese_words_whole() -> None:
    from service.adapters.segmenter import cjk_words

    text = "在 Llama 系列模型上,长文档问答的精度损失不到一个百分点,吞吐提升接近两倍。"
    for a, b in split_phrases(text, 16, cjk_words):
        assert not text[a:b].strip().startswith(("失", "点")), text[a:b]
    assert syllables("精度损失 KV", "zh") == 6  # four hanzi, K and V spelled

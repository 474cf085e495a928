"""The speech front-end: what each kind of engine is given, and the span map back to the script."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.text.pinyin import homophone, load_lexicon, speech_tools, word_pinyin
from service.adapters.text.segmenter import cjk_words
from service.config import ROOT
from service.domain.errors import ScriptError
from service.domain.markdown import to_markdown
from service.domain.script import parse_markdown
from service.domain.spec import spec_from_data
from service.domain.speech import Tools, front_end, parse_entries
from service.domain.speech.lexicon import MAX_ENTRIES
from service.domain.text import split_phrases

# Pinyin as the characters themselves: the pinyin reader's choices stay readable in asserts.
HANZI = Tools(cjk_words, lambda w: list(w), lambda s: None)
REAL = speech_tools()
SHIPPED = load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")


def said(text: str, reader: str = "pinyin", lexicon: dict[str, str] | None = None) -> str:
    spoken = front_end(text, "zh", reader, parse_entries(lexicon or {}), HANZI)
    return re.sub(r"\s+", " ", spoken.text).strip()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Flash 310B 总参数", "Flash 三 千 一 百 亿 总 参 数"),
        ("Pro 1.02T 做", "Pro 一 点 零 二 万 亿 做"),
        ("128K 的上下文", "一 百 二 十 八 K 的 上 下 文"),
        ("损失 3.2%", "损 失 百 分 之 三 点 二"),
        ("日期 2026-09-30", "日 期 二 零 二 六 年 九 月 三 十 日"),
        ("2026年", "二 零 二 六 年"),
        ("arXiv v1 版", "arXiv V 一 版"),
        ("取 top-2 结果", "取 top 二 结 果"),
        ("45-90 秒", "四 十 五 到 九 十 秒"),
        ("10%~20% 的增益", "百 分 之 十 到 二 十 的 增 益"),
        ("压到 2 比特", "压 到 两 比 特"),
        ("一个 50 行", "一 个 五 十 hang2"),  # 行 after a number: háng
        ("通过测试 ≠ 质量好", "通 过 测 试 不 等 于 质 量 好"),
        ("age > 48h", "age 大 于 四 十 八 h"),
        ("吞吐 ×2", "吞 吐 乘 二"),
        ("提速 3x", "提 速 三 倍"),
        ("占 1/2", "占 二 分 之 一"),
        ("通过/失败", "通 过 或 失 败"),
        ("12:30 开会,9:05 结束", "十 二 点 三 十 分 开 会 , 九 点 零 五 分 结 束"),
    ],
)
def test_numbers_and_symbols_are_said_in_chinese(text: str, expected: str) -> None:
    assert said(text) == expected


def test_latin_runs_acronyms_spelled_words_kept() -> None:
    out = said("代码 Agent 的 RL 用 GRPO 做 rollout 与 sum-preserving 再分配")
    assert "R L" in out and "G R P O" in out
    assert "Agent" in out and "rollout" in out and "sum-preserving" in out


def test_dashes_ellipses_and_ascii_punctuation_are_pauses() -> None:
    out = said("质量好——一个……两个,三个")
    assert out == "质 量 好 , 一 个 ... 两 个 , 三 个"
    # For edge only ASCII punctuation beside hanzi changes (to the Chinese pause it means).
    assert said("sampling,只保留;再分配", "text") == "sampling，只保留；再分配"
    assert said("质量好——一个……", "text") == "质量好——一个……"


def test_nothing_is_dropped_without_a_warning() -> None:
    spoken = front_end("天气☃很好", "zh", "pinyin", {}, HANZI)
    assert "☃" not in spoken.text
    assert spoken.warnings == ["'☃' has no reading and is not spoken"]
    assert front_end("天气很好。", "zh", "pinyin", {}, HANZI).warnings == []


def test_real_pinyin_with_the_shipped_lexicon() -> None:
    def py(text: str, extra: dict[str, str] | None = None) -> str:
        lexicon = {**SHIPPED, **parse_entries(extra or {})}
        return " ".join(front_end(text, "zh", "pinyin", lexicon, REAL).text.split())

    assert "chang2 shang4 xia4 wen2" in py("长上下文推理最贵")  # pypinyin alone: zhang3
    assert "dang4 jiang3 li4" in py("用测试当奖励源")
    assert "wu3 shi2 hang2" in py("一个 50 行精准命中需求")  # 行 after a number is háng
    assert "yin2 hang2" in py("银行") and "xing2 zou3" in py("行走")
    assert "fang1 cha1" in py("方差估计")
    # A job entry overrides: a word entry leaves the character inside other words alone.
    assert "hang2" in py("这样也行", {"行": "háng"})
    assert "yin2 hang2" in py("我去银行取钱", {"行": "xíng"})


def test_the_pinyin_reader_spaces_words_apart() -> None:
    """One space between a word's syllables, two after the word (jieba's words), numbers and
    symbols read as words too."""
    said = front_end("长上下文推理要 128 张卡", "zh", "pinyin", SHIPPED, REAL).text
    assert said.startswith("chang2 shang4 xia4 wen2  tui1 li3  yao4  ")
    assert "yi4 bai3 er4 shi2 ba1  zhang1  ka3  " in said


def test_edge_gets_homophones_for_lexicon_entries_only() -> None:
    lexicon = {**SHIPPED, **parse_entries({"GRPO": "G R P O"})}
    spoken = front_end("用测试当奖励源,再叠 GRPO。一个 50 行", "zh", "text", lexicon, REAL)
    assert spoken.text == "用测试档奖励源，再叠 G R P O。一个 50 航"
    assert homophone("hang2") == "航" and word_pinyin("航") == ["hang2"]


@pytest.mark.parametrize("reader", ["pinyin", "text"])
def test_phrase_spans_map_to_spoken_and_back_exactly(reader: str) -> None:
    text = (
        "GAGAR 把这块铁板敲碎:先 dynamic sampling,只保留同时含通过与失败轨迹的 rollout 组;"
        "Flash 310B 总参数做受控代码实验,Pro 1.02T 做大规模混合任务 RL——同时 ≠ 3.2% 提升。"
    )
    spoken = front_end(text, "zh", reader, SHIPPED, REAL)
    phrases = split_phrases(text, 16, cjk_words)
    for a, b in phrases:
        sa, sb = spoken.to_spoken(a), spoken.to_spoken(b)
        assert spoken.span_to_source(sa, sb) == (a, b)
    assert spoken.to_spoken(len(text)) == len(spoken.text)


_ALPHABET = st.sampled_from(
    ["代码", "测试", "行", "当", " ", "GRPO", "rollout", "310B", "3.2%", "——", "，", ",", "≠", "2"]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ALPHABET, min_size=1, max_size=20), st.sampled_from(["pinyin", "text"]))
def test_pieces_partition_both_texts(parts: list[str], reader: str) -> None:
    text = "".join(parts)
    spoken = front_end(text, "zh", reader, SHIPPED, REAL)
    src = spk = 0
    for p in spoken.pieces:
        assert (p.src_start, p.spk_start) == (src, spk)
        src, spk = p.src_end, p.spk_end
        if p.spk_end > p.spk_start:  # a spoken offset maps back to where its reading starts,
            back = spoken.to_source(p.spk_start)  # or before the unspoken text ahead of it
            assert back <= p.src_start and spoken.to_spoken(back) == p.spk_start
    assert (src, spk) == (len(text), len(spoken.text))


# -- the lexicon at the door -----------------------------------------------------------------
BASE = {"segments": [{"text": "一个 50 行的函数", "seconds": 5}]}


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"行": "xyz2"}, "'行': 'xyz2' is not a Mandarin syllable"),
        ({"": "háng"}, "has an empty word"),
        ({"行": ""}, "'行' has an empty pronunciation"),
        ({"当奖励源": "dàng jiǎng"}, "has 4 characters but 'dàng jiǎng' has 2 syllables"),
        ({f"词{i}": "cí" for i in range(MAX_ENTRIES + 1)}, "at most 500"),
    ],
)
def test_bad_entries_are_refused_naming_the_field(entries: dict[str, str], message: str) -> None:
    with pytest.raises(ScriptError) as err:
        spec_from_data({**BASE, "pronunciations": entries})
    assert "pronunciations" in str(err.value) and message in str(err.value)


def test_markdown_line_round_trips_and_names_the_bad_line() -> None:
    script = "[段 1 · 5 秒] 一个 50 行的函数\n读音: 行=háng; 当=dàng; GRPO=G R P O\n"
    spec = parse_markdown(script)
    assert spec.pronunciations == {"行": "háng", "当": "dàng", "GRPO": "G R P O"}
    assert spec.segments[0].text == "一个 50 行的函数"  # the line is not narration
    assert parse_markdown(to_markdown(spec)) == spec
    with pytest.raises(ScriptError) as err:
        parse_markdown("[段 1 · 5 秒] 文本\n\n读音: 行=hang9\n")
    assert "line 3" in str(err.value) and "pronunciations" in str(err.value)


@settings(deadline=None)
@given(st.text(max_size=60), st.sampled_from(["pinyin", "text"]))
def test_any_text_maps_end_to_end_and_every_unspoken_symbol_is_reported(
    text: str, reader: str
) -> None:
    spoken = front_end(text, "zh", reader, SHIPPED, REAL)
    assert spoken.to_spoken(0) == 0 and spoken.to_spoken(len(text)) == len(spoken.text)
    assert spoken.to_source(len(spoken.text)) == len(text)
    for p in spoken.pieces:
        chars = text[p.src_start : p.src_end]
        if p.spk_start == p.spk_end and chars.strip():  # not spoken: punctuation, or reported
            punct = all(unicodedata.category(c).startswith(("P", "Z")) for c in chars)
            assert punct or any(repr(chars) in w for w in spoken.warnings), (chars, spoken)

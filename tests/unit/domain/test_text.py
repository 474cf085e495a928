from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.text.segmenter import tagged_words
from service.domain.spec import JobSpec, Segment
from service.domain.subtitles import Layout, TimedPhrase, narration_cues
from service.domain.text import (
    CLAUSE_END,
    comparable,
    reading_chars,
    render_line,
    single_word,
    split_phrases,
    syllables,
    tokenize,
    width,
    wrap,
    zh_punct,
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
            "1,000",
            "10:30",
            "rollout",
            "dynamic sampling",
        ]
    ),
    st.sampled_from(["，", "。", "；", "、", "——", " ", ": ", ", ", "? ", "，“", "”"]),
)
texts = st.lists(_pieces, min_size=1, max_size=25).map("".join).filter(lambda t: bool(t.strip()))
LATIN = re.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9_'’.+\-/%]|(?<=[0-9])[,:](?=[0-9]))*[A-Za-z0-9_%+]|[A-Za-z0-9]"
)


def layout_of(text: str, language: str = "zh", pace: float = 4.5) -> list[list[str]]:
    """Cues (as lists of lines) for ``text`` read at ``pace`` syllables/s, 200 ms pauses."""
    lay = Layout.for_spec(
        JobSpec(language=language, segments=[Segment(text="x", seconds=1)]),
        tagged_words,
    )
    phrases, t = [], 0
    for a, b in split_phrases(text, lay.line_chars, tagged_words):
        d = max(150, round(syllables(text[a:b], language) / pace * 1000))
        phrases.append(TimedPhrase(a, b, t, t + d))
        t += d + 200
    return [list(c.lines) for c in narration_cues(text, phrases, lay)]


def shown(cues: list[list[str]]) -> str:
    return " | ".join(" / ".join(c) for c in cues)


# The table (`/` a line break, `|` a cue break), then more an editor would expect.
EXPECTED = [
    ("GAGAR 把这块铁板敲碎:先 dynamic sampling", "GAGAR 把这块铁板敲碎 / 先 dynamic sampling"),
    ("一个塞了 200 行无关改动还过了测试", "一个塞了 200 行无关改动还过了测试"),
    ("让 GRPO 的 baseline 与方差估计仍稳定", "让 GRPO 的 baseline / 与方差估计仍稳定"),
    (
        "再把所有轨迹放进共享工作空间,让 SFT 训练的智能评分员联合检视、对通过子集做相对排序",
        "再把所有轨迹放进共享工作空间 | 让 SFT 训练的智能评分员联合检视 / 对通过子集做相对排序",
    ),
    ("最后 sum-preserving 优势再分配——", "最后 sum-preserving 优势再分配"),
    ("光缓存就能吃掉一张显卡的一半显存", "光缓存就能吃掉一张显卡的一半显存"),
    (
        "在 Llama 系列模型上,128K 上下文的显存占用下降约一半",
        "在 Llama 系列模型上 / 128K 上下文的显存占用下降约一半",
    ),
    ("长文档问答的精度损失不到一个百分点", "长文档问答的精度损失 / 不到一个百分点"),
    ("再把量化误差在相邻 token 之间做补偿", "再把量化误差 / 在相邻 token 之间做补偿"),
    ("长上下文推理最贵的不是算力,而是 KV 缓存——", "长上下文推理最贵的不是算力 / 而是 KV 缓存"),
    ("直接压到 2 比特?精度通常会崩。", "直接压到 2 比特？精度通常会崩"),
    ("我昨天在图书馆看了三本关于人工智能的书", "我昨天在图书馆 / 看了三本关于人工智能的书"),
    ("这是我们团队过去三年里最重要的一次技术升级", "这是我们团队过去三年里 / 最重要的一次技术升级"),
    (
        "代码性能提升、轨迹长度增长抑制、训练稳定性提升",
        "代码性能提升 / 轨迹长度增长抑制、训练稳定性提升",
    ),
    # Our own.
    (
        "代码 Agent 的 RL 几乎都用可执行测试当奖励源",
        "代码 Agent 的 RL / 几乎都用可执行测试当奖励源",
    ),
    ("先用少量校准数据找出对误差最敏感的头", "先用少量校准数据找出 / 对误差最敏感的头"),
    (
        "这些头保留 8 比特,其余的头用 2 比特加逐通道缩放",
        "这些头保留 8 比特 / 其余的头用 2 比特加逐通道缩放",
    ),
    ("低排名 downweight,按比例 rescale", "低排名 downweight 按比例 rescale"),
    ("定在 10:30,预算 1,000 元,增长 3.2%。", "定在 10:30 预算 1,000 元 增长 3.2%"),
    ("值班同学第一反应是「是不是又被爬虫刷了?」", "值班同学第一反应是 / 「是不是又被爬虫刷了？」"),
    ("告警要直接指向《容量手册》里的对应章节", "告警要直接指向 / 《容量手册》里的对应章节"),
    (
        "重试逻辑(默认 3 次)把流量放大了将近 3.5 倍",
        "重试逻辑（默认 3 次） / 把流量放大了将近 3.5 倍",
    ),
    (
        "因为验证是并行的,大模型每跑一次前向就能确认好几个 token。",
        "因为验证是并行的 | 大模型每跑一次前向 / 就能确认好几个 token",
    ),
    (
        "保证数学、代码、对话三类数据的比例稳定在 2:1:1。",
        "保证数学、代码 / 对话三类数据的比例稳定在 2:1:1",
    ),
    (
        "2026 年 11 月 3 日上午 10:30,我们的推荐服务突然报警:P99 延迟从 120 毫秒涨到了 1,800 毫秒!",
        "2026 年 11 月 3 日上午 10:30 / 我们的推荐服务突然报警 | P99 延迟 / 从 120 毫秒涨到了 1,800 毫秒！",
    ),
]


@pytest.mark.parametrize(("text", "expected"), EXPECTED)
def test_an_editor_would_sign_off_these_breaks(text: str, expected: str) -> None:
    assert shown(layout_of(text)) == expected


@pytest.mark.parametrize(
    ("text", "never"),
    [
        ("一个塞了 200 行无关改动还过了测试,两者拿到的策略梯度完全一样", ["200 / 行"]),
        ("光缓存就能吃掉一张显卡的一半显存,而且还会拖慢整个服务的吞吐", ["一张 / 显卡"]),
        ("在这次实验里 128K 上下文的显存占用下降约一半", ["128K / 上下文"]),
        ("最后用 sum-preserving 优势再分配恢复优势总和并且保持稳定", ["sum-preserving / 优势"]),
    ],
)
def test_never_these_breaks(text: str, never: list[str]) -> None:
    got = shown(layout_of(text))
    for bad in never:
        assert bad not in got.replace(" | ", " / "), got


def test_english_keeps_its_own_rules() -> None:
    got = layout_of(
        "The new method keeps only groups with both passing and failing attempts, "
        "lets a trained grader rank the passing ones.",
        "en",
    )
    lines = [line for cue in got for line in cue]
    assert all(len(line) <= 42 for line in lines)
    assert not any(line.endswith((" the", " a", " with", " and")) for line in lines), lines
    assert "The new method keeps only groups" in lines


def test_width_counts_latin_as_about_half() -> None:
    assert width("再叠 GRPO 做组内相对策略优化") == pytest.approx(2 + 0.25 + 2.4 + 0.25 + 9)
    assert width("abc", "en") == 3
    assert reading_chars("再叠 GRPO 做") == 3 + 2


def test_zh_punctuation_for_display() -> None:
    assert zh_punct("敲碎:先 dynamic sampling,只保留") == "敲碎：先 dynamic sampling，只保留"
    assert zh_punct("直接压到 2 比特?精度") == "直接压到 2 比特？精度"
    for keep in ("1,000 行", "10:30 开始", "增长 3.2%", "a, b: c"):
        assert zh_punct(keep) == keep
    assert render_line("算力，而是 KV 缓存——", "zh", cue_end=True) == "算力 而是 KV 缓存"
    assert render_line("抑制、训练稳定性提升、", "zh") == "抑制、训练稳定性提升"
    assert render_line("精度通常会崩。", "zh") == "精度通常会崩"
    assert render_line("于是……", "zh", cue_end=True, continues=True) == "于是"
    assert render_line("于是……", "zh", cue_end=True, continues=False) == "于是……"


@settings(deadline=None)
@given(texts, st.sampled_from([16, 42, 10]))
def test_phrases_partition_the_text(text: str, limit: int) -> None:
    spans = split_phrases(text, limit)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a < b for a, b in spans)
    assert all(x[1] == y[0] for x, y in itertools.pairwise(spans))
    for a, b in spans:
        piece = text[a:b].strip().rstrip("，。；、—:,? ")
        # Over the limit only when one word alone is too wide to share a phrase.
        words = [t for t in tokenize(piece) if t.kind != "space"]
        assert width(piece) <= limit or any(width(w.text) > limit / 2 for w in words), piece


@settings(deadline=None)
@given(texts.filter(lambda t: bool(comparable(t))), st.sampled_from([16, 42]))
def test_wrap_keeps_words_whole_and_lines_short(text: str, limit: int) -> None:
    lines = wrap(text, limit, 2, language="zh")
    if lines is None:
        assert width(text) > limit
        return
    assert 1 <= len(lines) <= 2
    assert comparable("\n".join(lines)) == comparable(text)
    for line in lines:
        assert line == line.strip() and line
        assert width(line) <= limit or single_word(line)
        assert not re.search(r"[，。]$", line)
    # A break never leaves punctuation at the start of the next line.
    assert all(
        line[0] not in CLAUSE_END | {"，", "。", "？", "！", "：", "；"} for line in lines[1:]
    )
    # Every Latin word of the text appears whole on one line.
    for word in LATIN.findall(text):
        assert any(word in line for line in lines), word


def test_syllable_estimates() -> None:
    assert syllables("代码测试", "zh") == 4
    assert syllables("GRPO", "zh") == 4  # spelled out
    assert syllables("sampling", "en") == 2
    assert syllables("1.02T", "zh") == 5  # one point zero two T


def pairs(run: str) -> list[str]:
    """A stand-in dictionary segmenter: two-character words."""
    return [run[i : i + 2] for i in range(0, len(run), 2)]


@settings(deadline=None)
@given(texts, st.sampled_from([16, 10]))
def test_with_a_segmenter_no_break_falls_inside_a_word(text: str, limit: int) -> None:
    words = {(t.start, t.end) for t in tokenize(text, pairs) if t.kind == "cjk" and len(t.text) > 1}
    inside = {i for a, b in words for i in range(a + 1, b)}
    spans = split_phrases(text, limit, pairs)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert not {a for a, _ in spans} & inside
    lines = wrap(text, limit, 2, pairs)
    if lines is not None:
        assert comparable("\n".join(lines)) == comparable(text)


def test_real_segmenter_keeps_chinese_words_whole() -> None:
    text = "在 Llama 系列模型上,长文档问答的精度损失不到一个百分点,吞吐提升接近两倍。"
    for a, b in split_phrases(text, 16, tagged_words):
        assert not text[a:b].strip().startswith(("失", "点")), text[a:b]
    assert syllables("精度损失 KV", "zh") == 6  # four hanzi, K and V spelled


# English an editor signs off: the two cues, then more (`/` a line, `|` a cue).
EXPECTED_EN = [
    (
        "In Q3 2026, U.S. cloud providers spent roughly $41.5B on inference, about 3x what "
        "they spent on training the models they serve.",
        "In Q3 2026, U.S. cloud providers / spent roughly $41.5B on inference, | about 3x what "
        "they spent / on training the models they serve.",
    ),
    (
        "Batching is most of the answer: the 3rd configuration served 12,500 requests/min at "
        "$0.35 per 1M tokens, and its p99 latency stayed under 200 ms.",
        "Batching is most of the answer: / the 3rd configuration served | 12,500 requests/min / "
        "at $0.35 per 1M tokens, | and its p99 latency stayed under 200 ms.",
    ),
]


@pytest.mark.parametrize(("text", "expected"), EXPECTED_EN)
def test_english_breaks_an_editor_signs_off(text: str, expected: str) -> None:
    assert shown(layout_of(text, "en")) == expected


@pytest.mark.parametrize(
    ("text", "never"),
    [
        (
            "In Q3 2026, U.S. cloud providers spent roughly $41.5B on inference this year.",
            ["U.S. /"],
        ),
        (
            "Dr. Chen's team publishes v0.2 of the benchmark with the results vs. an H100 baseline at 900 GB/s.",
            ["Dr. /", "vs. /", "900 / GB/s"],
        ),
        (
            "The catch is that long prompts lose a fifth of their accuracy, e.g. on 128K context tasks.",
            ["e.g. /"],
        ),
    ],
)
def test_never_these_english_breaks(text: str, never: list[str]) -> None:
    got = shown(layout_of(text, "en")).replace(" | ", " / ")
    for bad in never:
        assert bad not in got, got


def test_no_break_inside_an_amount_or_a_bound() -> None:
    from service.domain.text import NEVER, analyse

    text = "They spent roughly $41.5B, ~40% of it running < 5 ms and €2M more."
    costs = analyse(text, "en").costs
    for sign in ("$", "~", "<", "€"):
        after = text.index(sign) + 1
        after += text[after] == " "
        assert costs.get(after, NEVER) >= NEVER, sign
        assert costs[text.index(sign)] < NEVER  # the break falls before the amount


def test_an_abbreviation_is_not_a_sentence_end_but_a_sentence_may_end_on_one() -> None:
    from service.domain.text import analyse, ends_sentence, pause_after

    text = "They spent it in the U.S. Then e.g. Dr. Chen left. Sales rose 3.5 percent."
    an = analyse(text, "en")
    ends = [t.end for t in an.tokens if ends_sentence(an.tokens, t.end) and t.kind != "space"]
    assert [text[:e].split()[-1] for e in ends] == ["U.S.", "left.", "percent."]
    # A phrase may end at "U.S." before "Then", never after "e.g." or "Dr.".
    phrases = [text[a:b] for a, b in split_phrases(text, 42, language="en")]
    assert phrases[:2] == ["They spent it in the U.S. ", "Then e.g. Dr. Chen left. "]
    assert pause_after("Sales rose 3.5") == 0


def test_zh_lines_never_end_in_clause_marks_and_short_pairs_stay_whole() -> None:
    got = shown(
        layout_of(
            "这篇论文《先看目录，再翻书》说得很直白：检索回来的 50 段里，真正有用的往往不到 10 段。"
        )
    )
    assert "《先看目录 再翻书》" in got
    got = shown(
        layout_of(
            "做法分两步：先用小模型给每一段打分，挑出最相关的 8 段；再把它们按“先证据、后结论”的顺序（连同出处）交给大模型生成答案。"
        )
    )
    lines = got.replace(" | ", " / ").split(" / ")
    assert not [line for line in lines if line[-1] in "，。、；：,;:"], lines
    assert "“先证据、后结论”" in got and "（连同出处）" in got
    assert render_line("挑出最相关的 8 段；再把", "zh") == "挑出最相关的 8 段 再把"
    assert render_line("做法分两步：先用", "zh") == "做法分两步：先用"
    assert render_line("做法分两步：", "zh") == "做法分两步"
    assert (
        render_line("真的吗？", "zh") == "真的吗？" and render_line("《目录》", "zh") == "《目录》"
    )

"""The Traditional (zh-Hant) and bilingual tracks, in-process: OpenCC through the adapter, the
pure conversion and splitting, and every bundled example's tracks timed by the syllable
model (as bench/subtitles.py reads them)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.adapters.text.hant import OpenccConverter
from service.adapters.text.segmenter import tagged_words
from service.domain.script import parse_script
from service.domain.subtitles import Cue, Layout, TimedPhrase
from service.domain.subtitles.bilingual import curly_quotes, english_lines, split_translation
from service.domain.subtitles.cues import narration_groups
from service.domain.subtitles.hant import (
    converted_phrases,
    default_variant,
    settle_together,
    traditional_narration,
)
from service.domain.text import comparable, tokenize, width
from tests.support.data import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.md")) + sorted(
    (ROOT / "examples" / "bilingual").glob("*.md")
)
BILINGUAL = ROOT / "examples" / "bilingual" / "zh-rag-rerank.md"
CONVERTER = OpenccConverter()


def _bench() -> ModuleType:
    loaded = importlib.util.spec_from_file_location("bench_subtitles", ROOT / "bench/subtitles.py")
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


BENCH = _bench()


def test_opencc_converts_with_taiwan_phrasing_and_hong_kong_characters() -> None:
    assert CONVERTER.convert("软件和鼠标的信息", "tw") == "軟體和滑鼠的資訊"
    assert CONVERTER.convert("软件和鼠标的信息", "hk") == "軟件和鼠標的信息"
    assert CONVERTER.convert("GPU 上跑 3e-4\n第二行", "tw") == "GPU 上跑 3e-4\n第二行"


@pytest.mark.parametrize(
    ("language", "locales", "want"),
    [
        ("zh", ["zh-TW"], "tw"),
        ("zh", ["zh-HK", "zh-CN"], "hk"),
        ("zh", ["zh-CN", "zh-TW", "zh-HK", "zh-TW"], "tw"),
        ("zh", ["zh-CN", "zh-CN-liaoning", ""], None),
        ("en", ["zh-TW"], None),
    ],
)
def test_the_default_variant_follows_the_voices_locale(
    language: str, locales: list[str], want: str | None
) -> None:
    assert default_variant(language, locales) == want


def test_phrases_keep_their_place_in_a_converted_text_that_grew() -> None:
    text = "插上U盘，打开软件。"
    phrases = [TimedPhrase(0, 5, 0, 900), TimedPhrase(5, 10, 1000, 2000)]
    converted, moved = converted_phrases(text, phrases, lambda s: CONVERTER.convert(s, "tw"))
    assert converted == "插上隨身碟，開啟軟體。"
    assert [converted[p.start : p.end] for p in moved] == ["插上隨身碟，", "開啟軟體。"]
    assert [(p.start_ms, p.end_ms) for p in moved] == [(0, 900), (1000, 2000)]


def test_a_converted_line_that_overflows_is_laid_out_again_at_the_same_phrases() -> None:
    """A converter that lengthens one word (as s2twp does: 显存 -> 視訊記憶體) pushes a
    full line past 16 units: the cue is broken again, by the line rules, within the width;
    its times and its words stay."""
    text = "显存占用下降了一半，延迟几乎不变。"
    phrases = [TimedPhrase(0, 10, 0, 2000), TimedPhrase(10, 17, 2100, 3500)]
    layout = Layout("zh", 10, 2, 833, 7000, 67, tagged_words)
    groups = narration_groups(text, phrases, layout)

    def convert(s: str) -> str:
        return s.replace("显存", "視訊記憶體")

    got, strained = traditional_narration(text, phrases, groups, layout, convert)
    assert strained == 0  # a good break was there
    assert [(c.start_ms, c.end_ms) for c in got] == [
        (phrases[i].start_ms, phrases[j - 1].end_ms) for i, j, _ in groups
    ]
    assert all(width(line) <= 10 for c in got for line in c.lines)
    assert comparable("".join(c.text for c in got)) == comparable(convert(text))
    assert any(c.text != convert("\n".join(g[2])) for c, g in zip(got, groups, strict=True))


def test_every_track_is_timed_as_the_simplified_one_whatever_its_reading_speed() -> None:
    layout = Layout("zh", 16, 2, 833, 7000, 67)
    simp = [Cue(0, 400, ("短",)), Cue(500, 900, ("短",)), Cue(100, 3000, ("上",), 1)]
    longer = [
        Cue(0, 400, ("長長長長長長長長長長",)),
        Cue(500, 900, ("長",)),
        Cue(100, 3000, ("上",), 1),
    ]
    a, b = settle_together([simp, longer], layout)
    assert [(c.start_ms, c.end_ms, c.layer) for c in a] == [
        (c.start_ms, c.end_ms, c.layer) for c in b
    ]
    assert [c.lines for c in b if c.layer == 0] == [longer[0].lines, longer[1].lines]


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "en-" not in p.name], ids=lambda p: p.stem)
def test_every_traditional_cue_is_the_conversion_of_its_simplified_cue(path: Path) -> None:
    """Same cues, same times; each text OpenCC's conversion of the Simplified cue, or, where
    a converted line overflowed and the cue was laid out again, the same words."""
    spec = parse_script(path.read_text(encoding="utf-8"))
    tracks = BENCH.model_tracks(spec, Layout.for_spec(spec, tagged_words))
    simp, hant = tracks["zh"], tracks["zh-Hant"]
    assert [(c.start_ms, c.end_ms) for c in simp] == [(c.start_ms, c.end_ms) for c in hant]
    relaid = 0
    for a, b in zip(simp, hant, strict=True):
        want = CONVERTER.convert(a.text, "tw")
        if b.text != want:
            relaid += 1
            assert comparable(b.text) == comparable(want), (a.text, b.text)
    assert relaid <= 2  # s2twp lengthens few lines enough to overflow


def test_a_translation_is_cut_at_sentences_then_clauses_in_proportion() -> None:
    text = "First we measure. Then, with care, we fix the slowest query first."
    pieces = split_translation(text, [3, 9])
    assert pieces == ["First we measure.", "Then, with care, we fix the slowest query first."]
    assert " ".join(split_translation(text, [1, 1, 1])) == text
    head, tail = split_translation(text, [9, 1])
    assert f"{head} {tail}" == text and 0 < len(tail) < len(text) / 3
    assert sorted(split_translation("one", [1, 1, 1])) == ["", "", "one"]


def test_a_translation_never_cuts_a_word_nor_a_quoted_title() -> None:
    text = 'The paper "Read the Contents, Then the Book" puts it bluntly: ten passages matter.'
    for weights in ([1, 1], [1, 3], [4, 1], [1, 1, 1, 1]):
        pieces = split_translation(text, [float(w) for w in weights])
        assert " ".join(p for p in pieces if p).split() == curly_quotes(text).split()
        for p in pieces:
            assert p.count("“") == p.count("”"), pieces


def test_english_lines_follow_the_english_rules() -> None:
    lines = english_lines("then they go to the large model in “evidence first” order to answer")
    assert len(lines) == 2 and all(len(line) <= 42 for line in lines)
    assert not lines[0].endswith((" in", " the", " to"))


def _clauses(text: str, marks: str) -> list[tuple[int, int]]:
    """Clause spans, ignoring marks inside quotes and brackets (a title is one clause's)."""
    spans, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "《“(（「" and 1) or 0
        depth -= (c in "》”)）」" and 1) or 0
        if depth == 0 and c in marks and not text[i + 1 : i + 2].isdigit():  # not 12.5
            spans.append((start, i + 1))
            start = i + 1
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _shown(spans: list[tuple[int, int]], a: int, b: int) -> set[int]:
    return {k for k, (p, q) in enumerate(spans) if p < b and a < q}


def test_no_cue_shows_english_more_than_one_clause_from_its_chinese() -> None:
    """The bilingual example's translation follows its Chinese clause by clause: each cue's
    English clauses lie within one clause of the Chinese clauses the cue shows."""
    spec = parse_script(BILINGUAL.read_text(encoding="utf-8"))
    layout = Layout.for_spec(spec, tagged_words)
    cues = BENCH.model_tracks(spec, layout)["zh"]
    at = 0
    for seg in spec.segments:
        assert seg.translation
        zh = comparable(seg.text)
        en = curly_quotes(seg.translation)
        zh_spans = _clauses(seg.text, "，：；。")
        en_spans = _clauses(en, ",:;.")
        assert len(zh_spans) == len(en_spans)  # the example is written so
        zh_at = en_at = 0
        mine = []
        while at < len(cues) and zh_at < len(zh):
            mine.append(cues[at])
            zh_at += len(comparable(cues[at].text))
            at += 1
        zh_at = 0
        for cue in mine:
            shown = comparable(cue.text)
            a = zh.index(shown, zh_at)
            zh_at = a + len(shown)
            # Map the comparable offsets back onto the text's clauses.
            where = [
                t.start + k
                for t in tokenize(seg.text)
                if t.kind in ("cjk", "word")
                for k in range(len(t.text))
            ]
            chinese = _shown(zh_spans, where[a], where[zh_at - 1] + 1)
            english_text = " ".join(cue.translation)
            if not english_text:
                continue
            e = en.index(english_text.split()[0], en_at)
            en_at = e + len(english_text)
            english = _shown(en_spans, e, en_at)
            assert all(min(abs(k - c) for c in chinese) <= 1 for k in english), (
                cue.text,
                english_text,
            )


def test_the_bilingual_example_has_no_rule_violations_in_either_language() -> None:
    spec = parse_script(BILINGUAL.read_text(encoding="utf-8"))
    layout = Layout.for_spec(spec, tagged_words)
    tracks = BENCH.model_tracks(spec, layout)
    for name in ("zh", "zh-Hant", "en"):
        got = BENCH.count(tracks[name], BENCH.track_layout(name, layout))
        assert not +got, (name, dict(got))
    english = [line for c in tracks["zh"] for line in c.translation]
    assert (
        " ".join(english).split()
        == " ".join(curly_quotes(s.translation or "") for s in spec.segments).split()
    )


def test_traditional_tracks_of_the_examples_break_no_rules() -> None:
    """s2twp's 显存 -> 視訊記憶體 lengthens a full line of kv-cache-quantization past any
    good break: that segment is grouped again with narrower Simplified lines, and neither
    track breaks a rule (the Simplified one is counted too)."""
    total = 0
    for path in EXAMPLES:
        spec = parse_script(path.read_text(encoding="utf-8"))
        if spec.language != "zh":
            continue
        layout = Layout.for_spec(spec, tagged_words)
        tracks = BENCH.model_tracks(spec, layout)
        for name in ("zh", "zh-Hant"):
            got = BENCH.count(tracks[name], layout)
            assert not +got, (path.name, name, dict(got))
            total += len(tracks[name])
    assert total > 40


def test_markdown_translations_round_trip_and_are_bounded() -> None:
    from service.domain.errors import ScriptError
    from service.domain.markdown import to_markdown

    spec = parse_script(BILINGUAL.read_text(encoding="utf-8"))
    assert all(s.translation for s in spec.segments)
    assert spec.qualifier_translations == [
        "Results as reported by the paper",
        "tested on English QA only",
    ]
    assert parse_script(to_markdown(spec)) == spec
    long = "[段 1 · 5 秒] 你好。\n译文: " + "word " * 900
    with pytest.raises(ScriptError, match=re.escape("segment 1 translation")):
        parse_script(long)
    bad = "[段 1 · 5 秒] 你好。\n字幕层叠加限定语:甲;乙\n限定语译文: only one\n"
    with pytest.raises(ScriptError, match="qualifier_translations has 1 item"):
        parse_script(bad)


def test_the_translation_sits_under_the_chinese_or_above_it_by_style() -> None:
    from service.domain.style import StyleSpec, resolve
    from service.domain.subtitles import WRITERS, Canvas

    cue = Cue(0, 2000, ("先重排再生成",), translation=("Rerank first, then generate.",))
    below = Canvas(style=resolve(None, None))
    above = Canvas(style=resolve(None, StyleSpec(translation_position="above")))
    assert WRITERS["srt"]([cue], below).split("\n")[2:4] == [
        "先重排再生成",
        "Rerank first, then generate.",
    ]
    assert WRITERS["srt"]([cue], above).split("\n")[2:4] == [
        "Rerank first, then generate.",
        "先重排再生成",
    ]
    assert "先重排再生成\\N{\\rTranslation}Rerank" in WRITERS["ass"]([cue], below)
    assert "{\\rTranslation}Rerank first, then generate.\\N{\\r}先重排再生成" in WRITERS["ass"](
        [cue], above
    )
    vtt = WRITERS["vtt"]([cue], below)
    assert "::cue(.translation)" in vtt and "<c.translation>Rerank first" in vtt
    plain = Cue(0, 2000, ("先重排再生成",))
    assert "Translation" not in WRITERS["ass"]([plain], below)  # no style for no translation


@given(
    st.lists(
        st.text(alphabet="abcdefgh,.;:“”()", min_size=1, max_size=12), min_size=0, max_size=40
    ),
    st.lists(st.floats(0, 30), min_size=1, max_size=8),
)
def test_a_split_keeps_every_word_whole_and_in_order(
    words: list[str], weights: list[float]
) -> None:
    text = " ".join(words)
    pieces = split_translation(text, weights)
    assert len(pieces) == len(weights)
    assert " ".join(p for p in pieces if p).split() == curly_quotes(text).split()

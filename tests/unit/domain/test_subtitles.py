from __future__ import annotations

import itertools
import os

import pysubs2
import srt
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.text.segmenter import tagged_words
from service.domain.spec import JobSpec, Segment
from service.domain.subtitles import (
    WRITERS,
    Canvas,
    Cue,
    Layout,
    TimedPhrase,
    narration_cues,
    overlay_cues,
    settle,
    timed_phrases,
)
from service.domain.text import (
    Segmenter,
    comparable,
    reading_chars,
    single_word,
    split_phrases,
    syllables,
    width,
)
from tests.support.data import GOLDEN

TEXT = (
    "GAGAR 把这块铁板敲碎:先 dynamic sampling,只保留同时含通过与失败轨迹的 rollout 组;"
    "最后 sum-preserving 优势再分配——低排名 downweight,按比例 rescale。"
)


def timed(
    text: str,
    language: str,
    limit: int,
    pace: float,
    start: int = 0,
    pause: int = 200,
    segment: Segmenter | None = None,
) -> list[TimedPhrase]:
    """Phrases timed as a reader at ``pace`` syllables/s with a pause after each."""
    out, t = [], start
    for a, b in split_phrases(text, limit, segment):
        d = max(150, round(syllables(text[a:b], language) / pace * 1000))
        out.append(TimedPhrase(a, b, t, t + d))
        t += d + pause
    return out


def layout(language: str = "zh", segment: Segmenter | None = None) -> Layout:
    spec = JobSpec(language=language, segments=[Segment(text="x", seconds=1)])
    return Layout.for_spec(spec, segment)


def golden_cues() -> list[Cue]:
    lay = layout(segment=tagged_words)
    cues = narration_cues(TEXT, timed(TEXT, "zh", 16, 4.5, start=1000, segment=tagged_words), lay)
    cues += overlay_cues(
        [
            ("abstract 未给出具体百分点", 2000, 5000),
            ("arXiv v1 release_age > 48h 越界", 5000, 8000),
        ],
        lay,
    )
    return settle(cues, lay)


def test_golden_files() -> None:
    cues = golden_cues()
    for ext, writer in WRITERS.items():
        got = writer(cues, Canvas())
        path = GOLDEN / f"layered.{ext}"
        if os.environ.get("UPDATE_GOLDEN"):
            path.write_text(got, encoding="utf-8")
        assert got == path.read_text(encoding="utf-8"), f"{ext} differs from {path}"


def test_srt_overlays_are_tagged_top_and_parse_back() -> None:
    subs = list(srt.parse(WRITERS["srt"](golden_cues(), Canvas())))
    tops = [s for s in subs if s.content.startswith("{\\an8}")]
    assert [s.content.removeprefix("{\\an8}") for s in tops] == [
        "abstract 未给出具体百分点",
        "arXiv v1 release_age > 48h 越界",
    ]
    assert all(a.start <= b.start for a, b in itertools.pairwise(subs))


def test_ass_layers_and_styles() -> None:
    subs = pysubs2.SSAFile.from_string(WRITERS["ass"](golden_cues(), Canvas(1080, 1920)))
    assert subs.styles["Overlay"].alignment == pysubs2.Alignment.TOP_CENTER
    assert subs.styles["Narration"].alignment == pysubs2.Alignment.BOTTOM_CENTER
    assert subs.styles["Overlay"].fontsize < subs.styles["Narration"].fontsize
    assert {e.layer for e in subs if e.style == "Overlay"} == {1}
    assert {e.layer for e in subs if e.style == "Narration"} == {0}


def test_vtt_cues_carry_their_layer_position() -> None:
    vtt = WRITERS["vtt"](golden_cues(), Canvas())
    assert vtt.startswith("WEBVTT\n")
    assert vtt.count(" line:8% ") == 2  # the qualifiers' top margin
    assert vtt.count(" line:88%,end ") == 4  # narration: its bottom edge 12 % up


def test_markup_is_shown_literally() -> None:
    lay = layout()
    text = "<font color=red>红</font>{\\an8}顶\\N部"
    cues = narration_cues(text, [TimedPhrase(0, len(text), 0, 2000)], lay)
    srt_text = WRITERS["srt"](cues, Canvas())
    assert "<font" not in srt_text and "{\\an8}" not in srt_text
    assert list(srt.parse(srt_text))
    ass = pysubs2.SSAFile.from_string(WRITERS["ass"](cues, Canvas()))
    assert "{" not in ass[0].text and "\\N" not in ass[0].text.replace(
        "\\N", "", len(cues[0].lines) - 1
    )


_pieces = st.one_of(
    st.text(alphabet="代码测试通过质量奖励优势排序轨迹模型显存的是在", min_size=1, max_size=14),
    st.sampled_from(
        ["GRPO", "sum-preserving", "baseline", "MiMo", "1.02T", "rollout", "dynamic sampling"]
    ),
    st.sampled_from(["，", "。", "；", "、", "——", " "]),
)
zh_texts = (
    st.lists(_pieces, min_size=1, max_size=30).map("".join).filter(lambda t: bool(comparable(t)))
)


@settings(deadline=None)
@given(zh_texts, st.floats(2.5, 7.5), st.integers(0, 900))
def test_cues_follow_the_rules_and_lose_nothing(text: str, pace: float, pause: int) -> None:
    lay = layout()
    phrases = timed(text, "zh", lay.line_chars, pace, pause=pause)
    raw = narration_cues(text, phrases, lay)
    cues = settle(raw, lay)
    assert comparable("\n".join(c.text for c in cues)) == comparable(text)
    frame = 1000 / lay.fps
    for c in cues:
        assert 1 <= len(c.lines) <= lay.max_lines
        for line in c.lines:
            assert width(line) <= lay.line_chars or single_word(line)
            assert not line.endswith(("，", "。", "、", "——", ",")), line
            assert "，" not in line and "。" not in line  # a comma inside a line is a space
        assert c.end_ms - c.start_ms <= lay.max_ms + 1
    for a, b in itertools.pairwise(cues):
        gap = b.start_ms - a.end_ms
        assert gap >= 2 * frame - 1
        # A short pause is chained to exactly two frames (unless that would pass 7 s).
        capped = a.end_ms - a.start_ms >= lay.max_ms - frame
        assert gap > lay.chain_ms or abs(gap - 2 * frame) <= 1 or capped, (a, b)
    # Cue starts are on the first frame of the phrase that starts them.
    starts = [p.start_ms for p in phrases]
    for c in cues:
        assert min(abs(c.start_ms - s) for s in starts) < 3 * frame


def test_reading_speed_extends_the_out_time_up_to_half_a_second() -> None:
    lay = layout()
    text = "长上下文推理最贵的不是算力"  # 13 characters: 1.44 s at 9 characters/s
    cues = settle(narration_cues(text, [TimedPhrase(0, len(text), 1000, 2100)], lay), lay)
    assert cues[0].start_ms == 1000
    assert reading_chars(cues[0].text) / ((cues[0].end_ms - 1000) / 1000) <= 9
    assert cues[0].end_ms <= 2100 + 500
    # Never into the next cue: two frames before it at the latest.
    two = narration_cues(
        text + "。对", [TimedPhrase(0, 14, 1000, 2100), TimedPhrase(14, 15, 4000, 4900)], lay
    )
    assert len(two) == 2
    settled = settle(two, lay)
    assert settled[0].end_ms <= 2600 and settled[1].start_ms == 4000


def test_short_pauses_are_chained_and_long_ones_kept() -> None:
    lay = layout()
    text = "第一句话说完了。第二句话接着说。第三句过了很久才说。"
    phrases = [
        TimedPhrase(0, 8, 0, 4000),
        TimedPhrase(8, 16, 4300, 8300),
        TimedPhrase(16, len(text), 9500, 13000),
    ]
    cues = settle(narration_cues(text, phrases, lay), lay)
    assert [c.text for c in cues] == ["第一句话说完了", "第二句话接着说", "第三句过了很久才说"]
    assert cues[1].start_ms - cues[0].end_ms == 67  # 2 frames at 30 fps
    assert cues[2].start_ms - cues[1].end_ms > 500


def test_word_boundaries_become_phrase_timings() -> None:
    text = "只保留同时含通过与失败轨迹的 rollout 组;再把所有轨迹放进共享工作空间。"
    # Word-level boundaries, as edge sends them (one word the service renamed is missing).
    words: list[tuple[int, int, int, int]] = []
    t = 0
    for word in [
        "只保留",
        "同时",
        "含",
        "通过",
        "与",
        "失败",
        "轨迹",
        "的",
        "rollout",
        "组",
        "再",
        "把",
        "所有",
        "轨迹",
        "放进",
        "共享",
        "工作",
        "空间",
    ]:
        at = text.find(word, words[-1][1] if words else 0)
        words.append((at, at + len(word), t, t + 200 * len(word)))
        t += 200 * len(word) + 50
    del words[4]
    phrases = timed_phrases(text, 16, words)
    assert phrases[0].start == 0 and phrases[-1].end == len(text)
    assert all(x.end == y.start for x, y in itertools.pairwise(phrases))
    assert all(x.end_ms <= y.start_ms for x, y in itertools.pairwise(phrases))
    assert phrases[0].start_ms == 0 and phrases[-1].end_ms == words[-1][3]


def test_every_editor_rule_holds_on_the_bundled_examples() -> None:
    """bench/subtitles.py's rules, read as an editor reads cues, on every bundled example in
    both languages (phrases timed by the syllable model): all zero, including line-final
    ；：, breaks inside 《》“”（）, numbers cut from their units, abbreviations as sentence ends."""
    import importlib.util

    from service.config import ROOT
    from service.domain.script import parse_script

    loaded = importlib.util.spec_from_file_location(
        "bench_subtitles", ROOT / "bench" / "subtitles.py"
    )
    assert loaded is not None and loaded.loader is not None
    bench = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(bench)
    languages = set()
    for path in sorted((ROOT / "examples").glob("*.md")):
        spec = parse_script(path.read_text(encoding="utf-8"))
        lay = Layout.for_spec(spec, tagged_words)
        got = bench.count(bench._model_cues(spec, lay), lay)
        assert not +got, (path.name, dict(got))
        languages.add(spec.language)
    assert languages == {"zh", "en"}

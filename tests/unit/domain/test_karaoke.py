"""Word-by-word captions: words timed from the engine's boundaries (word, syllable or phrase
granularity), the ASS switches never before a word's onset, the style and option that choose
the mode, and the burn-in's states at every switch."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace

import pysubs2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from devtools.ocr import highlights
from service.adapters.ffmpeg.burn import spans_of
from service.config import ROOT
from service.domain.errors import ScriptError
from service.domain.options import RenderOptions
from service.domain.spec import spec_from_data
from service.domain.style import StyleSpec, resolve
from service.domain.subtitles import WRITERS, Canvas, Cue, TimedWord, timed_words
from service.domain.subtitles.karaoke import Ink
from service.domain.subtitles.looks import karaoke_lines

TEXT = "代码 Agent 的 RL 用测试当奖励"
INK = Ink("#FFFFFF", "#FFD60A", "#000000", "#00000080")
VOCABULARY = ("代码", "测试", "奖励")


def tagged_words(run: str) -> list[str]:
    """A word segmenter of a few words (jieba's answers, without its dictionary)."""
    out, i = [], 0
    while i < len(run):
        n = 2 if run[i : i + 2] in VOCABULARY else 1
        out.append(run[i : i + n])
        i += n
    return out


STYLES = json.loads((ROOT / "voices" / "styles.json").read_text(encoding="utf-8"))


def test_word_boundaries_give_each_word_its_onset() -> None:
    """edge's WordBoundary: a boundary per word; the jieba words inside one share it."""
    bounds = [(0, 2, 100, 400), (3, 8, 450, 900), (9, 10, 900, 1000), (11, 13, 1050, 1300)]
    words = timed_words(TEXT[:13], bounds, "zh", tagged_words)
    assert [(w.text, w.start_ms, w.end_ms) for w in words] == [
        ("代码", 100, 400),
        ("Agent", 450, 900),
        ("的", 900, 1000),
        ("RL", 1050, 1300),
    ]


def test_syllable_boundaries_time_a_word_from_its_first_to_its_last() -> None:
    """The neural voice: one boundary per character; a word spans its syllables."""
    text = "奖励测试"
    bounds = [(i, i + 1, 100 * i, 100 * i + 90) for i in range(4)]
    words = timed_words(text, bounds, "zh", tagged_words)
    assert [(w.text, w.start_ms, w.end_ms) for w in words] == [
        ("奖励", 0, 190),
        ("测试", 200, 390),
    ]


def test_a_phrase_boundary_is_shared_by_syllables() -> None:
    """espeak: one boundary per phrase; its words spread over it by syllable count."""
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    assert words[0].start_ms == 1000 and words[-1].end_ms == 2100
    assert all(a.end_ms == b.start_ms for a, b in itertools.pairwise(words))
    # 代码(2) Agent(2) 的(1) RL(2: spelled) 用(1) 测试(2) 当(1) 奖励(2): 13 syllables
    assert [w.start_ms for w in words[:3]] == [1000, 1170, 1339]


def test_an_unspoken_word_gets_no_time_of_its_own() -> None:
    words = timed_words("好 the 好", [(0, 1, 0, 100), (6, 7, 300, 400)], "zh", tagged_words)
    assert [(w.text, w.start_ms, w.end_ms) for w in words] == [
        ("好", 0, 100),
        ("the", 100, 100),
        ("好", 300, 400),
    ]


def _cue(words: list[TimedWord], start: int, lines: tuple[str, ...]) -> Cue:
    return Cue(start, words[-1].end_ms + 500, lines, span=(0, 0, 99), words=tuple(words))


def _canvas(mode: str) -> Canvas:
    return Canvas(style=resolve(STYLES, StyleSpec(preset="vertical-safe", captions=mode)))


@given(
    start=st.integers(0, 5000),
    lead=st.integers(0, 400),
    gaps=st.lists(st.integers(10, 700), min_size=4, max_size=4),
)
def test_a_highlight_never_shows_before_its_word(start: int, lead: int, gaps: list[int]) -> None:
    """Each word's colour switches on at its onset (at the event's start when it is spoken
    before the cue shows: the ASS file keeps an event's start in centiseconds), and off at
    its end, where the next one's goes on."""
    times = [start + lead]
    for g in gaps:
        times.append(times[-1] + g)
    text = "代码Agent的RL"
    spans = [(0, 2), (2, 7), (7, 8), (8, 10)]
    bounds = [(a, b, times[i], times[i + 1]) for i, (a, b) in enumerate(spans)]
    words = timed_words(text, bounds, "zh", tagged_words)
    ass = WRITERS["ass"]([_cue(words, start, ("代码 Agent", "的 RL"))], _canvas("highlight"))
    got = highlights(ass, "#FFD60A")
    assert [w for w, _, _ in got] == ["代码", "Agent", "的", "RL"]
    for (_, on, off), w in zip(got, words, strict=True):
        assert w.start_ms <= on <= w.start_ms + 5  # later only where the event itself starts
        assert off == w.end_ms


def test_highlight_switches_one_word_at_a_time() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    text = karaoke_lines(["代码 Agent 的 RL", "用测试当奖励"], words, 1000, "highlight", INK)
    assert text is not None
    assert text.startswith("{\\1c&H0AD6FF&\\t(170,170,\\1c&HFFFFFF&)}代码{\\1c&HFFFFFF&} ")
    assert "{\\t(170,170,\\1c&H0AD6FF&)\\t(339,339,\\1c&HFFFFFF&)}Agent" in text
    assert text.count("\\N") == 1 and text.count("\\1c&H0AD6FF&") == len(words)


def test_reveal_hides_each_word_until_it_is_spoken() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    text = karaoke_lines(["代码 Agent 的 RL", "用测试当奖励"], words, 1000, "reveal", INK)
    assert text is not None
    assert text.startswith("代码 {\\alpha&HFF&\\t(170,170,\\1a&H00&\\3a&H00&\\4a&H7F&)}Agent ")
    assert text.count("\\alpha&HFF&") == len(words) - 1  # the first shows from the start


def test_a_cue_whose_words_are_not_all_shown_is_written_static() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    assert karaoke_lines(["代码 Agent"], words, 1000, "highlight", INK) is None
    cue = _cue(words, 1000, ("代码 Agent",))
    event = pysubs2.SSAFile.from_string(WRITERS["ass"]([cue], _canvas("highlight"))).events[0]
    assert event.text == "代码 Agent"


def test_static_captions_write_no_switch() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    cue = _cue(words, 1000, ("代码 Agent 的 RL", "用测试当奖励"))
    assert "\\t(" not in WRITERS["ass"]([cue], _canvas("static"))
    assert "\\t(" not in WRITERS["srt"]([cue], _canvas("highlight"))  # SRT stays static
    assert "\\t(" not in WRITERS["vtt"]([cue], _canvas("highlight"))


@pytest.mark.parametrize("mode", ["highlight", "reveal"])
def test_vtt_marks_each_words_onset_for_players_and_the_preview(mode: str) -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    cue = _cue(words, 1000, ("代码 Agent 的 RL", "用测试当奖励"))
    block = WRITERS["vtt"]([cue], _canvas(mode)).split("\n\n")[-1].splitlines()
    assert block[0].startswith("00:00:01.000 --> ")
    stamps = re.findall(r"<(\d\d):(\d\d):(\d\d)\.(\d{3})>", "\n".join(block[1:]))
    onsets = [((int(m) * 60 + int(sec)) * 1000 + int(ms)) for _, m, sec, ms in stamps]
    assert onsets == [w.start_ms for w in words[1:]]  # the first is spoken as the cue starts
    assert onsets == sorted(set(onsets)) and onsets[0] > 1000 and onsets[-1] < cue.end_ms
    # The words are the cue's: tags aside, the lines as the static VTT writes them.
    plain = WRITERS["vtt"]([cue], _canvas("static")).split("\n\n")[-1].splitlines()[1:]
    assert [re.sub(r"<\d[^>]*>", "", line) for line in block[1:]] == plain


def test_burn_in_draws_a_state_at_every_switch() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    cue = _cue(words, 1000, ("代码 Agent 的 RL", "用测试当奖励"))
    subs = pysubs2.SSAFile.from_string(WRITERS["ass"]([cue], _canvas("highlight")))
    marks = {m for span in spans_of(subs) for m in span}
    assert {w.start_ms for w in words[1:]} <= marks and 2600 in marks


def test_captions_in_the_style_the_preset_and_the_options() -> None:
    assert resolve(STYLES, StyleSpec(preset="vertical-safe-highlight")).captions == "highlight"
    assert resolve(STYLES, StyleSpec(preset="vertical-safe")).captions == "static"
    assert resolve(STYLES, None).narration.highlight_color == "#FFD60A"
    spec = spec_from_data({"segments": [{"text": "好", "seconds": 1}], "style": "vertical-safe"})
    applied = spec.rendered_with(RenderOptions(captions="reveal"))
    assert applied.style is not None and applied.style.preset == "vertical-safe"
    assert resolve(STYLES, applied.style).captions == "reveal"
    with pytest.raises(ValueError, match="colour"):
        StyleSpec.model_validate({"narration": {"highlight_color": "yellow"}})
    with pytest.raises(ValueError):
        RenderOptions.model_validate({"captions": "karaoke"})
    with pytest.raises(ScriptError, match="captions"):
        resolve({"presets": {"x": {"captions": "blink"}}}, StyleSpec(preset="x"))


def test_a_bilingual_cue_highlights_its_chinese_and_keeps_its_translation() -> None:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    cue = _cue(words, 1000, ("代码 Agent 的 RL", "用测试当奖励"))
    cue = replace(cue, translation=("Code agents use tests as the reward",))
    event = pysubs2.SSAFile.from_string(WRITERS["ass"]([cue], _canvas("highlight"))).events[0]
    assert event.text.count("\\1c&H0AD6FF&") == len(words)
    assert event.text.endswith("{\\rTranslation}Code agents use tests as the reward")

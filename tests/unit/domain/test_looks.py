"""Short-video caption looks (issue 37): authored emphasis (parsed out of the text, kept
whole in the layout, drawn in ASS and VTT, plain in SRT), the box and pop looks' ASS tags,
the burn-in's states for an animation, and the hook title (parsed, checked, placed clear of
the other layers)."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pysubs2
import pytest

from service.adapters.ffmpeg.burn import all_at_once, spans_of
from service.adapters.text.segmenter import tagged_words as jieba_words
from service.domain.emphasis import alnum_ranges, alnum_spots
from service.domain.emphasis import spans_of as emphasis_spans
from service.domain.errors import ScriptError
from service.domain.markdown import to_markdown
from service.domain.script import parse_markdown, parse_script
from service.domain.spec import JobSpec, Segment, spec_from_data
from service.domain.style import StyleSpec, resolve
from service.domain.subtitles import (
    HOOK,
    NARRATION,
    OVERLAY,
    TITLE,
    WRITERS,
    Canvas,
    Cue,
    Layout,
    TimedPhrase,
    hook_cue,
    narration_cues,
    timed_words,
    with_emphasis,
)
from service.domain.subtitles.canvas import LINE_HEIGHT, placements
from service.domain.text import split_phrases, syllables
from tests.unit.domain.test_karaoke import STYLES, TEXT, tagged_words

ORANGE = "&H0A9FFF&"  # the default emphasis colour, #FF9F0A, as ASS writes it


def _spec(text: str, **more: object) -> JobSpec:
    return spec_from_data({"segments": [{"text": text, "seconds": 5}], **more})


# -- parsing --------------------------------------------------------------------------------


def test_markdown_marks_leave_the_spoken_text_and_become_spans() -> None:
    spec = parse_markdown("[段 1 · 5 秒] 代码 Agent 的 **RL** 用测试当**奖励源**。")
    seg = spec.segments[0]
    assert "*" not in seg.text  # what the engine says, and every track shows
    assert seg.text == "代码 Agent 的 RL 用测试当奖励源。"
    assert [seg.text[a:b] for a, b in seg.emphasis_spans] == ["RL", "奖励源"]
    assert parse_markdown(to_markdown(spec)) == spec  # written back with its marks


def test_json_emphasis_takes_words_or_spans_and_survives_a_round_trip() -> None:
    spec = spec_from_data(
        {
            "segments": [
                {"text": "测试通过不等于测试质量", "seconds": 3, "emphasis": ["测试", [4, 7]]}
            ]
        }
    )
    seg = spec.segments[0]
    assert seg.emphasis_spans == ((0, 2), (4, 7), (7, 9))  # every 测试, and the span
    assert JobSpec.model_validate_json(spec.model_dump_json()) == spec
    assert _spec("a **b** c").segments[0].emphasis == [(2, 3)]  # ** in JSON text too


@pytest.mark.parametrize(
    ("segment", "field", "says"),
    [
        ({"text": "先看**目录，再翻书"}, "segment 1 text", "does not close"),
        ({"text": "先看** **目录"}, "segment 1 text", "marks no word"),
        ({"text": "先看目录", "emphasis": ["书"]}, "segment 1 emphasis", "not in the segment"),
        ({"text": "先看目录", "emphasis": [[2, 9]]}, "segment 1 emphasis", "not a span"),
        ({"text": "先看目录", "emphasis": ["看目", "目录"]}, "segment 1 emphasis", "overlap"),
    ],
)
def test_bad_emphasis_is_refused_naming_the_segment_and_field(
    segment: dict[str, object], field: str, says: str
) -> None:
    with pytest.raises(ScriptError, match=says) as err:
        spec_from_data({"segments": [{"seconds": 3, **segment}]})
    assert str(err.value).startswith(field)


def test_a_keyword_longer_than_a_line_is_refused() -> None:
    word = "一二三四五六七八九十一二三四五六七"  # 17 hanzi: a line holds 16
    with pytest.raises(ScriptError, match="over a line's 16") as err:
        parse_markdown(f"[段 1 · 5 秒] 先看**{word}**再说")
    assert err.value.field == "segment 1 emphasis"


def test_the_hook_line_in_every_spelling_and_its_checks() -> None:
    for line in (
        "钩子: 别把测试通过当铁板",
        "钩子：别把测试通过当铁板",
        "Hook: 别把测试通过当铁板",
    ):
        spec = parse_markdown(f"{line}\n\n[段 1 · 5 秒] 代码测试。")
        assert spec.hook is not None and spec.hook.text == "别把测试通过当铁板"
        assert spec.hook.seconds == 3  # the default
    spec = parse_markdown("钩子: 铁板 · 2.5 秒\n[段 1 · 5 秒] 代码测试。")
    assert spec.hook is not None and spec.hook.seconds == 2.5
    assert parse_markdown(to_markdown(spec)) == spec
    assert parse_script('{"hook": {"text": "铁板"}, "segments": [{"text": "好", "seconds": 4}]}')
    with pytest.raises(ScriptError, match="longer than the narration") as err:
        _spec("好", hook={"text": "铁板", "seconds": 6})
    assert err.value.field == "hook seconds"
    with pytest.raises(ScriptError, match="two lines") as err:
        _spec("好", hook={"text": "别把测试通过当铁板" * 3})
    assert err.value.field == "hook text"


def test_an_unknown_look_is_refused_naming_the_field() -> None:
    with pytest.raises(ScriptError, match="style captions"):
        _spec("好", style={"captions": "sparkle"})


# -- layout ---------------------------------------------------------------------------------

LONG = "GAGAR 先做 dynamic sampling,只保留同时含通过与失败轨迹的 rollout 组,再做相对排序"


def _timed(text: str, keep: tuple[tuple[int, int], ...] = ()) -> list[TimedPhrase]:
    out, t = [], 0
    for a, b in split_phrases(text, 16, jieba_words, keep=keep):
        d = max(150, round(syllables(text[a:b], "zh") / 4.5 * 1000))
        out.append(TimedPhrase(a, b, t, t + d))
        t += d + 200
    return out


def _layout(scale: float = 1.15) -> Layout:
    spec = JobSpec(segments=[Segment(text="x", seconds=1)])
    return Layout.for_spec(spec, jieba_words, scale)


def _shown(cues: list[Cue]) -> list[str]:
    return [re.sub(r"\W", "", line) for c in cues for line in c.lines]


def test_a_keyword_a_line_break_would_split_is_kept_whole() -> None:
    """Mark the four characters around each break the layout makes: with the mark, the
    keyword shows on one line; without it, the same text breaks inside it."""
    lay = _layout()
    plain = narration_cues(LONG, _timed(LONG), lay)
    lines = _shown(plain)
    squeezed = re.sub(r"\W", "", LONG)
    checked = 0
    for first, second in itertools.pairwise(lines):
        if len(first) < 2 or len(second) < 2 or not (first[-2:] + second[:2]).isalpha():
            continue
        word = first[-2:] + second[:2]
        at = LONG.find(word)
        if at < 0 or squeezed.count(word) != 1:
            continue
        keep = ((at, at + len(word)),)
        marked = narration_cues(LONG, _timed(LONG, keep), lay, keep=keep)
        assert any(word in line for line in _shown(marked)), (word, _shown(marked))
        checked += 1
    assert checked >= 1


def test_the_keywords_larger_size_is_counted_in_a_lines_width() -> None:
    text = "两者拿到的策略梯度完全一样真的一样"  # 17 hanzi: two lines either way
    keep = ((5, 9),)
    phrases = [TimedPhrase(0, len(text), 0, 3000)]
    for cue in narration_cues(text, phrases, _layout(1.5), keep=keep):
        for line in cue.lines:
            grown = len(line) + 0.5 * sum(1 for ch in "策略梯度" if ch in line)
            assert grown <= 16, line


# -- drawing --------------------------------------------------------------------------------


def _cue(mode_words: bool = True) -> Cue:
    words = timed_words(TEXT, [(0, len(TEXT), 1000, 2100)], "zh", tagged_words)
    cue = Cue(1000, 2600, ("代码 Agent 的 RL", "用测试当奖励"), span=(0, 0, len(TEXT)))
    keep = [(TEXT.index("测试"), TEXT.index("测试") + 2)]
    cue = with_emphasis([cue], [TEXT], [keep])[0]
    return replace(cue, words=tuple(words)) if mode_words else cue


def _canvas(mode: str) -> Canvas:
    return Canvas(style=resolve(STYLES, StyleSpec(preset="vertical-safe", captions=mode)))


def _events(mode: str, cue: Cue | None = None) -> list[pysubs2.SSAEvent]:
    return pysubs2.SSAFile.from_string(WRITERS["ass"]([cue or _cue()], _canvas(mode))).events


def test_emphasis_maps_to_the_cues_letters_and_back_to_its_lines() -> None:
    ranges = alnum_ranges("a, 代码测试!", [(5, 7)], 0, 8)
    assert ranges == ((3, 5),)
    assert alnum_spots(["a，代码", "测试！"], ((3, 5),)) == [[], [(0, 2)]]
    assert alnum_spots(["a 代码测", "试"], ((3, 5),)) == [[(4, 5)], [(0, 1)]]  # split: each part


@pytest.mark.parametrize("mode", ["static", "highlight", "reveal", "box", "pop"])
def test_emphasis_is_drawn_in_its_colour_and_size_in_every_look(mode: str) -> None:
    text = _events(mode)[-1].text
    assert re.search(r"\\1c" + ORANGE + r"\\fscx115\\fscy115[^}]*\}测试\{", text), text
    assert "*" not in text


def test_vtt_draws_emphasis_as_a_class_and_srt_as_plain_text() -> None:
    cue = _cue()
    vtt = WRITERS["vtt"]([cue], _canvas("highlight"))
    assert "::cue(.emphasis) { color: #FF9F0A; font-size: 115%; }" in vtt
    assert re.search(r"<c\.emphasis>(<[\d:.]+>)?测试</c>", vtt), vtt
    srt = WRITERS["srt"]([cue], _canvas("static"))
    assert "用测试当奖励" in srt and "<" not in srt and "*" not in srt


def test_box_draws_the_spoken_words_box_on_a_layer_under_the_text() -> None:
    box, text = _events("box")
    assert (box.layer, box.style, text.layer) == (-1, "Box", NARRATION)
    subs = pysubs2.SSAFile.from_string(WRITERS["ass"]([_cue()], _canvas("box")))
    assert subs.styles["Box"].borderstyle == 3  # an opaque box...
    assert subs.styles["Box"].primarycolor.a == 255  # ...under invisible text
    assert subs.styles["Box"].outlinecolor == pysubs2.Color(0xFF, 0x2D, 0x55, 255)
    # Each word's box shows from its onset to the next one's, and is hidden again after it.
    words = _cue().words
    for w in words[1:]:
        on, off = w.start_ms - 1000, w.end_ms - 1000
        pattern = rf"\\3a&HFF&\\t\({on},{on},\\3a&H00&\)\\t\({off},{off},\\3a&HFF&\)\}}"
        assert re.search(pattern + re.escape(w.text) + r"\{\\3a&HFF&\}", box.text), w
    assert "\\t(" not in re.sub(r"\{[^}]*fscx[^}]*\}", "", text.text)  # the text is static


_TAG = re.compile(r"\\(t\((\d+),(\d+),([^)]*)\)|[^\\]+)")
_NAMES = re.compile(r"(1c|1a|3a|4a|alpha|fscx|fscy)(.*)")


def _apply(tags: str, state: dict[str, str], at: int) -> None:
    """``tags`` (one override block's) applied to ``state`` at ``at`` ms into the event:
    switches (``\\t(t,t,...)``) from their time on; an animation would fail the test."""
    for m in _TAG.finditer(tags):
        if m.group(2) is not None:
            t1, t2 = int(m.group(2)), int(m.group(3))
            assert t1 == t2, m.group(0)  # steps, never a continuous animation
            if at >= t1:
                _apply(m.group(4), state, at)
            continue
        name = _NAMES.match(m.group(1))
        if name is None:
            continue
        key, value = name.groups()
        for k in ("1a", "3a", "4a") if key == "alpha" else (key,):
            state[k] = value


def _drawn(text: str, at: int) -> list[tuple[str, dict[str, str]]]:
    """What an event shows at ``at`` ms into it: each piece of text with the tags in force."""
    state: dict[str, str] = {}
    out = []
    for block, piece in re.findall(r"\{([^}]*)\}|([^{]+)", text):
        if block:
            _apply(block, state, at)
        elif piece:
            out.append((piece, dict(state)))
    return out


def _visible(drawn: list[tuple[str, dict[str, str]]]) -> list[str]:
    return [p for p, st in drawn if st.get("1a", "&H00&") != "&HFF&"]


def _scale_of(drawn: list[tuple[str, dict[str, str]]], piece: str) -> str:
    return next(st.get("fscx", "100") for p, st in drawn if p == piece)


def test_pop_draws_the_spoken_word_alone_over_a_still_line_in_two_steps() -> None:
    line, popped = _events("pop")
    assert (line.layer, popped.layer) == (NARRATION, 5)
    assert (popped.start, popped.end, popped.style) == (line.start, line.end, line.style)
    agent = _cue().words[1]
    on = agent.start_ms - 1000
    # Before its onset the word shows in the line, and nothing pops.
    assert "Agent" in _visible(_drawn(line.text, on - 1)) and not _visible(
        _drawn(popped.text, on - 1)
    )
    # From its onset: 120 %, then 110 % from 60 ms, in the highlight colour, hidden in the
    # line meanwhile (one word drawn, not two); from 120 ms the line shows it at its size.
    for at, scale in ((on, "120"), (on + 59, "120"), (on + 60, "110"), (on + 119, "110")):
        shown = _drawn(popped.text, at)
        assert _visible(shown) == ["Agent"], at
        assert _scale_of(shown, "Agent") == scale
        assert dict(shown)["Agent"]["1c"] == "&H0AD6FF&"
        assert "Agent" not in _visible(_drawn(line.text, at))
    settled = _drawn(line.text, on + 120)
    assert "Agent" in _visible(settled) and dict(settled)["Agent"]["1c"] == "&H0AD6FF&"
    assert _scale_of(settled, "Agent") == "100" and not _visible(_drawn(popped.text, on + 120))


def test_the_popped_word_is_laid_out_as_the_line_is() -> None:
    """Same pieces, every other one at the size the line draws it, at every instant: libass
    lays the popped event's line out as the still one (centred), so the scaled word stays
    centred where it sits in the line, and settles without a jump."""
    line, popped = _events("pop")
    for w in _cue().words:
        for at in (w.start_ms - 1000 + d for d in (0, 30, 60, 90, 120)):
            mine, theirs = _drawn(popped.text, at), _drawn(line.text, at)
            assert [p for p, _ in mine] == [p for p, _ in theirs]
            for (piece, st), (_, still) in zip(mine, theirs, strict=True):
                if piece not in _visible(mine):  # the popping word's own size is its step's
                    assert st.get("fscx", "100") == still.get("fscx", "100"), (at, piece)


def test_an_emphasised_word_pops_from_120_percent_of_its_own_size() -> None:
    _, popped = _events("pop")
    spoken = next(w for w in _cue().words if w.text == "测试")
    shown = _drawn(popped.text, spoken.start_ms - 1000)
    assert _visible(shown) == ["测试"] and _scale_of(shown, "测试") == "138"
    assert _scale_of(_drawn(popped.text, spoken.start_ms - 1000 + 60), "测试") == "126.5"


def test_the_burn_in_draws_each_step_of_a_pop_and_its_largest_size() -> None:
    subs = pysubs2.SSAFile.from_string(WRITERS["ass"]([_cue()], _canvas("pop")))
    marks = {m for span in spans_of(subs, 30.0) for m in span}
    agent = _cue().words[1]
    steps = sorted(m for m in marks if agent.start_ms <= m <= agent.start_ms + 120)
    assert steps == [agent.start_ms, agent.start_ms + 60, agent.start_ms + 120]
    sample = all_at_once([subs]).events[-1].text
    # The cover holds them: each word at its own largest, not every word at the largest.
    assert sample.startswith("{\\alpha&H00&}{\\fscx120\\fscy120}代码{\\fscx100\\fscy100} ")
    assert "{\\fscx138\\fscy138}测试{\\fscx120\\fscy120}当" in sample


def test_the_hook_is_drawn_clear_of_the_title_card_and_the_qualifiers() -> None:
    lay = _layout()
    hook = hook_cue("别把测试通过当铁板", 3.0, lay)
    assert hook.layer == HOOK and hook.end_ms == 3000
    canvas = Canvas(style=resolve(STYLES, StyleSpec(preset="vertical-safe")))
    tall_title = Cue(0, 8000, ("GRPO", "别把测试通过当铁板", "第三行"), TITLE)
    card = Cue(0, 9000, ("一", "二", "三", "四", "五"), OVERLAY)
    cues = [hook, tall_title, card, Cue(0, 4000, ("代码", "测试"), NARRATION)]
    places = placements(canvas, cues)
    top = places[HOOK].margin
    bottom = top + len(hook.lines) * places[HOOK].look.size * LINE_HEIGHT
    for layer, cue in ((TITLE, tall_title), (OVERLAY, card)):
        place = places[layer]
        tall = len(cue.lines) * place.look.size * LINE_HEIGHT
        a = place.margin - tall / 2 if place.anchor == "middle" else place.margin
        assert bottom <= a or top >= a + tall, (layer, top, bottom)
    ass = WRITERS["ass"](cues, canvas)
    assert "Style: Hook," in ass and ",Hook,,0,0,0,,别把测试通过当铁板" in ass
    assert "<c.hook>别把测试通过当铁板</c>" in WRITERS["vtt"](cues, canvas)


def test_emphasis_spans_are_every_occurrence_of_a_word() -> None:
    assert emphasis_spans("测试测试", ["测试"]) == ((0, 2), (2, 4))

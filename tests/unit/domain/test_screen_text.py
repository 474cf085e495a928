"""The shot list on screen: each shot's 屏幕文字 as its own layer (title cards mid-frame,
captions under the top layer), the risk card's qualifiers one by one or accumulating, off
for soft subtitles and on for burn-in unless asked otherwise."""

from __future__ import annotations

import itertools

import pysubs2
import pytest

from service.domain.errors import ScriptError
from service.domain.markdown import to_markdown
from service.domain.script import parse_markdown
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.subtitles import (
    OVERLAY,
    SCREEN,
    TITLE,
    WRITERS,
    Canvas,
    Cue,
    Layout,
    overlay_cues,
    screen_cues,
    settle,
)
from service.domain.timeline import place_overlays, place_segments, slots_ms
from tests.support.data import GAGAR_EXAMPLE


def gagar(display: str = "one-by-one") -> JobSpec:
    text = GAGAR_EXAMPLE.read_text(encoding="utf-8")
    spec = parse_markdown(text)
    return spec.model_copy(update={"qualifier_display": display})


def layers(spec: JobSpec, screen: bool = True) -> list[Cue]:
    lay = Layout.for_spec(spec)
    slots = place_segments(spec, slots_ms(spec))
    cues = overlay_cues([(o.text, o.start_ms, o.end_ms) for o in place_overlays(spec, slots)], lay)
    if screen:
        shots = [
            (s.name, s.screen_text, round(s.start * 1000), round(s.end * 1000)) for s in spec.shots
        ]
        cues += screen_cues(shots, lay)
    return settle(cues, lay)


def test_title_cards_and_captions_per_shot() -> None:
    cues = [c for c in layers(gagar()) if c.screen]
    assert [(c.layer, c.start_ms, c.end_ms) for c in cues][:2] == [
        (TITLE, 0, 8000),
        (SCREEN, 8000, 19933),  # 2 frames before the next caption
    ]
    assert cues[0].text.replace("\n", "") == "GRPO别把测试通过当铁板"
    assert cues[-1].layer == TITLE and cues[-1].start_ms == 85000  # the end card
    assert len(cues) == 7 and all("≤18" not in c.text for c in cues)


def test_risk_card_one_by_one_or_accumulating() -> None:
    one = [c for c in layers(gagar()) if c.layer == OVERLAY]
    acc = [c for c in layers(gagar("accumulate")) if c.layer == OVERLAY]
    assert [len(c.lines) for c in one] == [1, 1, 1, 1, 1]
    assert [len(c.lines) for c in acc] == [1, 2, 3, 4, 5]  # each adds one under the others
    assert acc[0].start_ms == 70000 and acc[-1].end_ms == 85000  # the risk card, 3 s each
    assert all(a.end_ms < b.start_ms for a, b in itertools.pairwise(acc))  # never two at once
    assert acc[-1].lines == tuple(gagar().qualifiers)


def test_shot_text_never_collides_with_qualifiers_or_narration() -> None:
    """The caption's top edge is below the tallest qualifier block; the title card is
    mid-frame; narration at the bottom: their pixel bands on a 1080x1920 frame are disjoint."""
    ass = pysubs2.SSAFile.from_string(
        WRITERS["ass"](layers(gagar("accumulate")), Canvas(1080, 1920))
    )
    top, screen, title, narr = (ass.styles[k] for k in ("Overlay", "Screen", "Title", "Narration"))
    qual_bottom = top.marginv + 5 * top.fontsize * 1.25
    assert screen.marginv >= qual_bottom
    caption_bottom = screen.marginv + 3 * screen.fontsize * 1.25
    assert caption_bottom < 1920 / 2 - 2 * title.fontsize * 1.25 / 2  # above the title card
    assert 1920 / 2 + title.fontsize * 1.25 < 1920 - narr.marginv - 2 * narr.fontsize * 1.25
    assert title.alignment == pysubs2.Alignment.MIDDLE_CENTER
    srt = WRITERS["srt"](layers(gagar()), Canvas())
    assert "{\\an5}GRPO" in srt and "{\\an8}abstract" in srt
    vtt = WRITERS["vtt"](layers(gagar()), Canvas())
    assert " line:50%,center " in vtt and "<c.title>" in vtt and "::cue(.screen)" in vtt


def test_screen_text_switch() -> None:
    spec = gagar()
    assert not spec.shows_screen_text(RenderOptions())  # soft subtitles: words spoken only
    assert spec.shows_screen_text(RenderOptions(burn_in=True))
    assert not spec.shows_screen_text(RenderOptions(burn_in=True, screen_text=False))
    assert spec.shows_screen_text(RenderOptions(screen_text=True))
    on = spec.model_copy(update={"screen_text": True})
    assert on.shows_screen_text(RenderOptions())


def test_qualifier_display_in_markdown() -> None:
    spec = parse_markdown("限定语显示: 累积\n[段 1 · 3 秒] 好\n字幕层叠加限定语:甲;乙")
    assert spec.qualifier_display == "accumulate"
    assert parse_markdown(to_markdown(spec)) == spec
    with pytest.raises(ScriptError, match="qualifier_display: expected 逐条"):
        parse_markdown("限定语显示: 随便\n[段 1 · 3 秒] 好")
    with pytest.raises(ScriptError, match="qualifier_display"):
        spec_from_data({"segments": [{"text": "好", "seconds": 1}], "qualifier_display": "all"})

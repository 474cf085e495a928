"""The subtitle tracks beside the Simplified one: the Traditional track
(subtitles.zh-Hant.srt/.vtt/.ass, option ``traditional``), the supplied translation under the
Chinese (bilingual cues) and on its own (subtitles.en.srt/.vtt). Every track shows the
same cues at the same times (``settle_together``); only their words differ."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from service.domain.options import Traditional
from service.domain.subtitles import (
    HOOK,
    OVERLAY,
    SCREEN,
    TITLE,
    WRITERS,
    Canvas,
    Cue,
    Layout,
    TimedPhrase,
    overlay_cues,
    screen_cues,
    settle,
)
from service.domain.subtitles.bilingual import english_lines, split_translation
from service.domain.subtitles.cues import narration_cue, narration_groups
from service.domain.subtitles.hant import (
    Convert,
    settle_together,
    traditional_font,
    traditional_layer,
    traditional_narration,
    traditional_style,
)
from service.domain.subtitles.layers import OVERLAY_WIDTH, SCREEN_WIDTH, TITLE_WIDTH
from service.domain.text import reading_chars
from service.domain.timeline import TimedOverlay
from service.domain.units import s_to_ms
from service.pipeline.manifest import Placed
from service.pipeline.results import JobPlan
from service.ports import Converter

HANT = "subtitles.zh-Hant"
EN = "subtitles.en"
FORMATS = {HANT: ("srt", "vtt", "ass"), EN: ("srt", "vtt")}
OVERLAY_EN_CHARS = round(42 * OVERLAY_WIDTH)  # qualifiers are smaller: longer English lines


@dataclass
class Tracks:
    """The main track's cues (bilingual when the script gives translations) and the other
    tracks by file stem (``subtitles.zh-Hant``, ``subtitles.en``)."""

    main: list[Cue]
    others: dict[str, list[Cue]] = field(default_factory=dict)
    variant: Traditional | None = None


def placed_phrases(placed: Placed) -> list[list[TimedPhrase]]:
    """Each segment's timed phrases on the job's timeline (its slot's start added)."""
    return [
        [
            replace(p, start_ms=slot.start_ms + p.start_ms, end_ms=slot.start_ms + p.end_ms)
            for p in res.phrases
        ]
        for res, slot in zip(placed.results, placed.slots, strict=True)
    ]


def bilingual(plan: JobPlan) -> bool:
    spec = plan.spec
    return any(s.translation for s in spec.segments) or bool(spec.qualifier_translations)


def _translated(cues: list[Cue], translation: str | None) -> list[Cue]:
    """A segment's cues with its translation split across them, in proportion."""
    if not translation or not cues:
        return cues
    weights = [max(0.5, reading_chars(c.text)) for c in cues]
    # Up until the next cue (settling extends a cue to it across a short pause).
    ends = [c.start_ms for c in cues[1:]] + [cues[-1].end_ms + 500]
    seconds = [max(c.end_ms, e) / 1000 - c.start_ms / 1000 for c, e in zip(cues, ends, strict=True)]
    pieces = split_translation(translation, weights, seconds=seconds)
    return [replace(c, translation=english_lines(p)) for c, p in zip(cues, pieces, strict=True)]


NARROWER = 2  # units a Simplified line may give up so that its Traditional lines fit


def _grouped(
    text: str,
    phrases: list[TimedPhrase],
    layout: Layout,
    following: int | None,
    convert: Convert | None,
    keep: tuple[tuple[int, int], ...] = (),
) -> tuple[list[tuple[int, int, list[str]]], list[Cue]]:
    """A segment's cue groups and, with ``convert``, its Traditional cues. Where the
    converted words find no good lines in a Simplified cue (s2twp's 显存 -> 視訊記憶體
    lengthens a full line), the segment is grouped again with Simplified lines a unit or
    two narrower, so that both tracks keep the line rules at the same times."""
    groups = narration_groups(text, phrases, layout, following, keep)
    if convert is None:
        return groups, []
    converted, strained = traditional_narration(text, phrases, groups, layout, convert)
    for less in range(1, NARROWER + 1):
        if not strained:
            break
        narrow = replace(layout, line_chars=layout.line_chars - less)
        again = narration_groups(text, phrases, narrow, following, keep)
        cues, left = traditional_narration(text, phrases, again, layout, convert)
        if left < strained:
            groups, converted, strained = again, cues, left
    return groups, converted


def _overlay_translations(plan: JobPlan, overlays: list[TimedOverlay]) -> list[tuple[str, ...]]:
    """Each overlay's English: the translation of every qualifier it shows, one a line."""
    spec = plan.spec
    known = dict(zip(spec.qualifiers, spec.qualifier_translations, strict=False))
    out = []
    for o in overlays:
        items = [known.get(part) for part in o.text.split("\n") if part.strip()]
        lines = [ln for item in items if item for ln in english_lines(item, OVERLAY_EN_CHARS, 3)]
        out.append(tuple(lines))
    return out


def _converted_layers(
    plan: JobPlan,
    overlays: list[TimedOverlay],
    tops: list[Cue],
    screens: list[Cue],
    layout: Layout,
    convert: Convert,
) -> list[Cue]:
    """The qualifier and screen-text cues in Traditional, each layer laid out again from its
    converted source text where a converted line overflows (the translations kept)."""
    relaid = overlay_cues([(convert(o.text), o.start_ms, o.end_ms) for o in overlays], layout)
    if screens:
        shots = [
            (s.name, convert(s.screen_text), s_to_ms(s.start), s_to_ms(s.end))
            for s in plan.spec.shots
        ]
        relaid += screen_cues(shots, layout)

    def chars(cue: Cue) -> float:
        ratio = {OVERLAY: OVERLAY_WIDTH, SCREEN: SCREEN_WIDTH, TITLE: TITLE_WIDTH}[cue.layer]
        return max(4, round(layout.line_chars * ratio))

    return traditional_layer(tops + screens, relaid, chars, layout.language, convert)


def subtitle_tracks(
    plan: JobPlan,
    timed: list[list[TimedPhrase]],
    overlays: list[TimedOverlay],
    cues: list[Cue],
    layout: Layout,
    converter: Converter | None,
) -> Tracks:
    """Settle ``cues`` (finalize's, unsettled: narration by segment, then the overlays in
    ``overlays``' order, then screen text) and, when the job asks for them, make the
    Traditional and English tracks beside them."""
    spec = plan.spec
    variant = plan.options.hant if spec.language == "zh" else None
    if converter is None or variant is None:
        if not bilingual(plan):
            return Tracks(settle(cues, layout))
        convert = None
    else:
        convert = partial(converter.convert, variant=variant)
    main: list[Cue] = []
    hant: list[Cue] = []
    for k, (seg, phrases) in enumerate(zip(spec.segments, timed, strict=True)):
        following = next((p[0].start_ms for p in timed[k + 1 :] if p), None)
        groups, converted = _grouped(
            seg.text, phrases, layout, following, convert, seg.emphasis_spans
        )
        mine = _translated(
            [narration_cue(phrases, i, j, ln, k) for i, j, ln in groups], seg.translation
        )
        main += mine
        hant += [
            replace(t, translation=c.translation) for t, c in zip(converted, mine, strict=False)
        ]
    english = _overlay_translations(plan, overlays)
    tops = [
        replace(c, translation=e)
        for c, e in zip((c for c in cues if c.layer == OVERLAY), english, strict=True)
    ]
    screens = [c for c in cues if c.layer in (SCREEN, TITLE)]
    hooks = [c for c in cues if c.layer == HOOK]
    main += tops + screens + hooks
    tracks = [main]
    if convert is not None:
        hant += _converted_layers(plan, overlays, tops, screens, layout, convert)
        hant += [replace(c, lines=tuple(convert(line) for line in c.lines)) for c in hooks]
        tracks.append(hant)
    settled = settle_together(tracks, layout)
    out = Tracks(settled[0], variant=variant if convert is not None else None)
    if convert is not None:
        out.others[HANT] = settled[1]
    out.others[EN] = [
        Cue(c.start_ms, c.end_ms, c.translation, c.layer) for c in settled[0] if c.translation
    ]
    if not out.others[EN]:
        del out.others[EN]
    return out


def write_others(tracks: Tracks, canvas: Canvas, outdir: Path) -> None:
    """subtitles.zh-Hant.srt/.vtt/.ass and subtitles.en.srt/.vtt, when made."""
    for stem, cues in tracks.others.items():
        shown = replace(canvas, language="en") if stem == EN else canvas
        if stem == HANT and tracks.variant is not None:
            style = traditional_style(canvas.style, tracks.variant)
            shown = replace(canvas, font=traditional_font(canvas.font, tracks.variant), style=style)
        for ext in FORMATS[stem]:
            (outdir / f"{stem}.{ext}").write_text(WRITERS[ext](cues, shown), encoding="utf-8")


def shown_track(plan: JobPlan, ext: str) -> str:
    """The subtitle file the video carries (burned in, or as its soft track): the
    Traditional one when ``burn_in_script`` is hant and the job has it."""
    hant = plan.options.burn_in_script == "hant" and plan.options.hant is not None
    return f"{HANT if hant else 'subtitles'}.{ext}"

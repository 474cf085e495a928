"""Traditional Chinese cues from the Simplified ones (pure; the conversion itself is given as
a function, OpenCC behind the Converter port).

A Traditional cue shows the same phrases at the same times as its Simplified cue. Its lines
are the Simplified lines converted one by one when each still fits the layout's width (so
the text is exactly the conversion of the Simplified cue); OpenCC's phrasing may lengthen a
line (U盘 -> 隨身碟), and such a cue is laid out again from the converted segment text by
the same line rules (``layout_lines``), at the same phrases.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import replace

from service.domain.options import Traditional
from service.domain.style import Look, Style
from service.domain.subtitles.cues import Cue, Layout, TimedPhrase
from service.domain.subtitles.layers import settle
from service.domain.text import (
    NEVER,
    LineSpan,
    Segmenter,
    analyse,
    forced_lines,
    layout_lines,
    single_word,
    width,
)

Convert = Callable[[str], str]


def default_variant(language: str, locales: list[str]) -> Traditional | None:
    """The Traditional track a job gets without asking: a Chinese job whose voices are
    zh-TW (tw) or zh-HK (hk), by the segments' first voices, the most common one (the
    earliest on a tie); None for mainland or other voices."""
    if language != "zh":
        return None
    found: list[Traditional] = []
    for locale in locales:
        region = locale.lower().split("-")[1:2]
        if region == ["tw"]:
            found.append("tw")
        elif region in (["hk"], ["mo"]):
            found.append("hk")
    if not found:
        return None
    return max(dict.fromkeys(found), key=found.count)


def converted_phrases(
    text: str, phrases: list[TimedPhrase], convert: Convert
) -> tuple[str, list[TimedPhrase]]:
    """The segment text converted piece by piece between phrase boundaries (a phrase never
    splits a word, so this is the whole text's conversion), with each phrase's span moved
    to where its converted text lies."""
    cuts = sorted({0, len(text), *(p.start for p in phrases), *(p.end for p in phrases)})
    moved = {0: 0}
    out: list[str] = []
    at = 0
    for a, b in itertools.pairwise(cuts):
        piece = convert(text[a:b])
        out.append(piece)
        at += len(piece)
        moved[b] = at
    return "".join(out), [replace(p, start=moved[p.start], end=moved[p.end]) for p in phrases]


_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def converted_segmenter(text: str, segment: Segmenter | None, convert: Convert) -> Segmenter | None:
    """A word segmenter for the converted text that cuts it where the Simplified text's words
    are (each word converted on its own, longest match first), with their tags: the word
    segmenter's dictionary is Simplified, and would cut 視訊記憶體 where it cuts nothing."""
    if segment is None:
        return None
    vocab: dict[str, str] = {}
    for run in _CJK_RUN.findall(text):
        for w in segment(run):
            word, tag = (w, "") if isinstance(w, str) else w
            vocab.setdefault(convert(word), tag)
    longest = max((len(w) for w in vocab), default=1)

    def cut(run: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        i = 0
        while i < len(run):
            size = next(
                (n for n in range(min(longest, len(run) - i), 0, -1) if run[i : i + n] in vocab),
                1,
            )
            out.append((run[i : i + size], vocab.get(run[i : i + size], "")))
            i += size
        return out

    return cut


def _fits(lines: list[str], limit: float, language: str) -> bool:
    return all(width(line, language) <= limit or single_word(line) for line in lines)


def traditional_narration(
    text: str,
    phrases: list[TimedPhrase],
    groups: list[tuple[int, int, list[str]]],
    layout: Layout,
    convert: Convert,
) -> tuple[list[Cue], int]:
    """One segment's Traditional cues, one per Simplified group (``narration_groups``):
    the same times, the converted lines, laid out again where a converted line overflows.
    Also how many cues could only be laid out at a break an editor sends back (or over the
    width): the Simplified grouping leaves their converted words no good lines."""
    converted, moved = converted_phrases(text, phrases, convert)
    an = None
    cues = []
    strained = 0
    for i, j, lines in groups:
        shown = [convert(line) for line in lines]
        if not _fits(shown, layout.line_chars, layout.language):
            if an is None:
                words = converted_segmenter(text, layout.segment, convert)
                an = analyse(converted, layout.language, words)
            a, b = moved[i].start, moved[j - 1].end
            continues = bool(converted[b:].strip())
            span = LineSpan(an, a, b, layout.line_chars, layout.max_lines, continues)
            got = layout_lines(span) or forced_lines(span)
            strained += got[0] >= NEVER
            shown = got[1]
        cues.append(Cue(phrases[i].start_ms, phrases[j - 1].end_ms, tuple(shown)))
    return cues, strained


def traditional_layer(
    cues: list[Cue],
    relaid: list[Cue],
    limit: Callable[[Cue], float],
    language: str,
    convert: Convert,
) -> list[Cue]:
    """Overlay or screen-text cues converted line by line; where a converted line overflows
    ``limit(cue)``, the cue at the same place in ``relaid`` (the layers made again from the
    converted source texts, in the same order) instead. Times and layers stay."""
    out = []
    for k, cue in enumerate(cues):
        lines = [convert(line) for line in cue.lines]
        if not _fits(lines, limit(cue), language) and k < len(relaid):
            lines = list(relaid[k].lines)
        out.append(replace(cue, lines=tuple(lines)))
    return out


def settle_together(tracks: list[list[Cue]], layout: Layout) -> list[list[Cue]]:
    """``settle`` the first track, and give every other track (the same cues in other
    words, index for index) the first one's settled times: a converted or bilingual track
    is timed exactly as the Simplified one, whatever its reading speed."""
    base = tracks[0]
    out: list[list[Cue]] = [[] for _ in tracks]
    for layer in sorted({c.layer for c in base}):
        idx = sorted(
            (i for i, c in enumerate(base) if c.layer == layer), key=lambda i: base[i].start_ms
        )
        settled = settle([base[i] for i in idx], layout)
        for t, track in enumerate(tracks):
            out[t] += [
                replace(track[i], start_ms=s.start_ms, end_ms=s.end_ms)
                for i, s in zip(idx, settled, strict=True)
            ]
    return [sorted(o, key=lambda c: (c.start_ms, c.layer)) for o in out]


# Noto's CJK families draw a character as each region writes it: a Traditional track in
# the Simplified face shows mainland glyph forms. The Noto Sans/Serif CJK SC family of a
# style becomes its TC (Taiwan) or HK face; any other font is the user's choice and stays.
_FACES = {"tw": "TC", "hk": "HK"}


def traditional_font(font: str, variant: Traditional) -> str:
    if font.startswith("Noto ") and font.endswith(" CJK SC"):
        return font.removesuffix("SC") + _FACES[variant]
    return font


def traditional_style(style: Style, variant: Traditional) -> Style:
    """The style with each layer's Noto CJK SC face swapped for the variant's."""

    def look(x: Look) -> Look:
        return replace(x, font=traditional_font(x.font, variant))

    return replace(
        style,
        narration=look(style.narration),
        qualifiers=look(style.qualifiers),
        screen_text=look(style.screen_text),
        translation=look(style.translation_look),
    )

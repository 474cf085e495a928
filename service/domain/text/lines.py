"""Subtitle lines: the cheapest break of a cue into one or two balanced lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from service.domain.text.analysis import Analysis, analyse
from service.domain.text.tokens import (
    CLAUSE_END,
    NEVER,
    ZH_TRAILING,
    Segmenter,
    detect_language,
    tokenize,
)
from service.domain.text.width import render_line, width

# -- lines ----------------------------------------------------------------------------------

MISSED_PUNCT = 8.0  # a two-line cue that breaks elsewhere than at its clause punctuation
TOP_HEAVY = 0.4  # per width unit the top line is longer than the bottom one
BOTTOM_HEAVY = 0.3  # per unit the bottom line is longer: balanced, slightly bottom-heavy


def _balance(top: float, bottom: float) -> float:
    return (top - bottom) * TOP_HEAVY if top > bottom else (bottom - top) * BOTTOM_HEAVY


def _inner_punct(an: Analysis, p: int, q: int) -> int:
    """Clause punctuation marks inside text[p:q] (not at its end; 、 of a list aside)."""
    marks = [
        t
        for t in an.tokens
        if p <= t.start < q and t.kind == "punct" and an.base[t.start] in CLAUSE_END
    ]
    while marks and not re.search(r"\w", an.text[marks[-1].end : q]):
        marks.pop()  # the run of punctuation that ends the line
    kept = [t for t in marks if an.base[t.start] not in "、."]
    return len(kept) - sum(1 for t in kept if an.base[t.start] == "—") // 2


def _grown(an: Analysis, p: int, q: int, grow: float) -> float:
    """The width the kept spans inside text[p:q] add when drawn ``1 + grow`` times larger."""
    if not grow:
        return 0.0
    spans = [(max(a, p), min(b, q)) for a, b in an.keep]
    return grow * sum(width(an.base[a:b], an.language) for a, b in spans if a < b)


@dataclass(frozen=True, slots=True)
class LineSpan:
    """What to lay out: text[a:b] of ``an`` as at most ``max_lines`` display lines of at most
    ``limit`` width. ``continues``: the text goes on after it (a … ending the cue is dropped, as
    render_line does); ``grow``: how much larger than the text the analysis's kept spans
    (emphasis) are drawn."""

    an: Analysis
    a: int
    b: int
    limit: float
    max_lines: int
    continues: bool = True
    grow: float = 0.0


def layout_lines(span: LineSpan) -> tuple[float, list[str]] | None:
    """The cheapest way to show ``span``: one line if it fits, else the break costs plus a
    balance term. A single unbreakable atom may overflow a line of its own. None when it
    cannot fit."""
    an, a, b = span.an, span.a, span.b
    lang = an.language
    missed_cost = MISSED_PUNCT if lang == "zh" else 1.0
    cands = sorted(p for p in an.costs if a < p < b and an.text[a:p].strip())
    memo: dict[tuple[int, int], tuple[float, list[str]] | None] = {}

    def line(p: int, q: int) -> tuple[str, bool]:
        shown = render_line(an.base[p:q], lang, cue_end=q == b, continues=span.continues)
        single = not any(p < c < q for c in cands)
        return shown, single or width(shown, lang) + _grown(an, p, q, span.grow) <= span.limit

    def go(p: int, k: int) -> tuple[float, list[str]] | None:
        key = (p, k)
        if key in memo:
            return memo[key]
        shown, ok = line(p, b)
        result: tuple[float, list[str]] | None = None
        if ok:
            missed = 0.0 if p == a else missed_cost * _inner_punct(an, p, b)
            result = (missed, [shown] if shown else [])
        elif k > 1:
            for c in cands:
                if c <= p:
                    continue
                head, fits = line(p, c)
                if not fits:
                    break
                rest = go(c, k - 1)
                if rest is None or not head or not rest[1]:
                    continue
                cost = an.costs[c] + rest[0] + _balance(width(head, lang), width(rest[1][0], lang))
                cost += missed_cost * _inner_punct(an, p, c)
                if result is None or cost < result[0]:
                    result = (cost, [head, *rest[1]])
        memo[key] = result
        return result

    return go(a, span.max_lines)


def forced_lines(span: LineSpan) -> tuple[float, list[str]]:
    """layout_lines for text that does not fit: the least overflow (the limit relaxed step by
    step), at a price that keeps it a last resort."""
    for step in range(1, 40):
        got = layout_lines(replace(span, limit=span.limit * (1 + step / 8)))
        if got is not None:
            return got[0] + NEVER * step, got[1]
    an = span.an
    shown = render_line(
        an.base[span.a : span.b], an.language, cue_end=True, continues=span.continues
    )
    return NEVER * 40, [shown]


def wrap(
    text: str,
    limit: float,
    max_lines: int = 2,
    segment: Segmenter | None = None,
    language: str | None = None,
) -> list[str] | None:
    """Break ``text`` into at most ``max_lines`` display lines of at most ``limit`` width at
    the cheapest breaks. None when it cannot fit, except that a single word longer than the
    limit is allowed a line of its own."""
    lang = language or detect_language(text)
    an = analyse(text, lang, segment)
    got = layout_lines(LineSpan(an, 0, len(text), limit, max_lines, continues=False))
    return got[1] if got and got[1] else None


def single_word(text: str, segment: Segmenter | None = None) -> bool:
    """One word with at most punctuation around it: it may exceed a line, as it cannot break."""
    return len([t for t in tokenize(text, segment) if t.kind in ("word", "cjk")]) == 1


def strip_trailing(text: str, language: str) -> str:
    text = text.strip()
    if language == "zh":
        text = text.rstrip(ZH_TRAILING + " \t\n\u3000")
    return text


def comparable(text: str) -> str:
    """Text without punctuation and spaces: what must survive subtitle layout unchanged."""
    return "".join(t.text for t in tokenize(text) if t.kind in ("cjk", "word"))

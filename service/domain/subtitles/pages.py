"""Short pages for short-form English (pure): ``subtitles.max_words_per_cue`` cuts each timed
phrase into pages of at most that many words, where the English break costs say a break
reads best (text/analysis.py): never after an article or a preposition, never between a
number and its unit. Each page is timed inside its phrase by syllables (karaoke._time_at),
and becomes a phrase of its own: the cue grouping then holds a cue to the word limit."""

from __future__ import annotations

import itertools
import math

from service.domain.subtitles.cues import TimedPhrase
from service.domain.subtitles.karaoke import _time_at
from service.domain.text import NEVER, Analysis, Segmenter, Token, analyse

SHORT_PAGE = 1.5  # per word a page is short of the limit: fewer, fuller pages
WORDS = ("word", "cjk")


def page_words(an: Analysis, start: int, end: int) -> list[Token]:
    """The words (not punctuation) of text[start:end]."""
    return [t for t in an.tokens if start <= t.start < end and t.kind in WORDS]


def _cuts(an: Analysis, words: list[Token], limit: int) -> list[int]:
    """Where to cut ``words`` (offsets of the words that start a page) so that each page
    holds at most ``limit`` words, at the least break cost; a page that would end on an
    article costs as a break that is never made (chosen only when nothing else fits)."""
    n = len(words)
    article = {t.start for t, c in zip(an.tokens, an.classes, strict=True) if "article" in c}
    best = [0.0] + [math.inf] * n
    back = [0] * (n + 1)
    for k in range(1, n + 1):
        for i in range(max(0, k - limit), k):
            cost = best[i] + SHORT_PAGE * (limit - (k - i))
            if k < n:
                cost += an.costs.get(words[k].start, NEVER)
                if words[k - 1].start in article:
                    cost += NEVER
            if cost < best[k]:
                best[k], back[k] = cost, i
    cuts, k = [], n
    while k > 0:
        k = back[k]
        if k:
            cuts.append(words[k].start)
    return sorted(cuts)


def pages(
    text: str,
    phrases: list[TimedPhrase],
    limit: int,
    language: str,
    segment: Segmenter | None = None,
) -> list[TimedPhrase]:
    """``phrases`` with each of more than ``limit`` words cut into pages, timed inside it."""
    an = analyse(text, language, segment)
    out: list[TimedPhrase] = []
    for p in phrases:
        words = page_words(an, p.start, p.end)
        if len(words) <= limit:
            out.append(p)
            continue
        bound = (p.start, p.end, p.start_ms, p.end_ms)
        edges = [p.start, *_cuts(an, words, limit), p.end]
        for a, b in itertools.pairwise(edges):
            on = p.start_ms if a == p.start else round(_time_at(text, bound, a, language))
            off = p.end_ms if b == p.end else round(_time_at(text, bound, b, language))
            out.append(TimedPhrase(a, b, on, max(on, off)))
    return out

"""Phrases: the spans one engine call (and one subtitle cue) speaks."""

from __future__ import annotations

import itertools
import math

from service.domain.text.analysis import Analysis, analyse, cost_at
from service.domain.text.tokens import CLAUSE_END, CLOSERS, Segmenter, detect_language
from service.domain.text.width import width

# -- phrases --------------------------------------------------------------------------------

_DROPPED = "，,。、—… "
PIECE_COST = 2.0  # each extra phrase: fewer, longer phrases read (and sound) better
PIECE_SHAPE = 8.0  # weight of a piece's (squared) shortfall from a full line, when a clause splits


def _clause_bounds(an: Analysis) -> list[int]:
    """Offsets after each run of clause punctuation (and the spaces after it)."""
    text, tokens = an.text, an.tokens
    ends: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind != "punct" or an.base[tok.start] not in CLAUSE_END:
            continue
        if an.inside_pair(tok.end) or an.inside_keep(tok.end):
            continue  # a comma inside a short title or quote: 《先看目录，再翻书》 stays whole
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            tok.text == "."
            and an.base[tok.start] == "."
            and nxt is not None
            and nxt.kind != "space"
        ):
            continue  # "e.g" inside a word-ish run
        if (
            nxt is not None
            and nxt.kind == "punct"
            and (an.base[nxt.start] in CLAUSE_END or nxt.text in CLOSERS)
        ):
            continue  # break after the whole run of punctuation: "——", "。」"
        end = tok.end
        while end < len(text) and text[end].isspace():
            end += 1
        if 0 < end < len(text) and not an.inside_keep(end):
            ends.append(end)
    return ends


def _split_clause(an: Analysis, a: int, b: int, limit: float) -> list[int]:
    """Cut points inside [a, b) so that each piece fits ``limit`` at the least break cost."""
    if width(an.base[a:b].rstrip().rstrip(_DROPPED), an.language) <= limit:
        return []
    cands = [p for p in an.costs if a < p < b]
    cands.sort()
    points = [a, *cands, b]
    n = len(points)
    best = [math.inf] * n
    back = [0] * n
    best[0] = 0.0
    for j in range(1, n):
        for i in range(j - 1, -1, -1):
            # Trailing commas and dashes are not shown at a line end: they take no width.
            w = width(an.base[points[i] : points[j]].rstrip().rstrip(_DROPPED), an.language)
            over = w > limit
            if over and i < j - 1:
                break  # wider only gets wider; one overlong atom may stand alone
            c = best[i] + (cost_at(an, points[i]) if i else 0) + PIECE_COST
            # Balanced pieces: a short one is a poor timing grain, an odd pause, and leaves
            # its neighbour too long to share a cue.
            c += PIECE_SHAPE * ((limit - min(w, limit)) / limit) ** 2
            if over:
                c += 50 * (w - limit)
            if c < best[j]:
                best[j], back[j] = c, i
    cuts: list[int] = []
    j = n - 1
    while j > 0:
        j = back[j]
        if j:
            cuts.append(points[j])
    return sorted(cuts)


def split_phrases(
    text: str,
    limit: int,
    segment: Segmenter | None = None,
    *,
    language: str | None = None,
    keep: tuple[tuple[int, int], ...] = (),
) -> list[tuple[int, int]]:
    """Partition ``text`` into phrases: clause pieces that fit one subtitle line (``limit``
    in the language's width units) each, cut where the break costs least. Phrases are the
    timing grain of the subtitles and espeak's synthesis units; none cuts a span of
    ``keep`` (an emphasised keyword)."""
    if not text:
        return [(0, 0)]
    lang = language or detect_language(text)
    an = analyse(text, lang, segment, keep)
    bounds = [0, *_clause_bounds(an), len(text)]
    cuts: list[int] = []
    for a, b in itertools.pairwise(bounds):
        cuts += [a, *_split_clause(an, a, b, limit)]
    cuts.append(len(text))
    spans = [(x, y) for x, y in itertools.pairwise(cuts) if text[x:y].strip()]
    if not spans:
        return [(0, len(text))]
    # Spans must cover the text end to end: give any whitespace-only piece to its neighbour.
    fixed: list[tuple[int, int]] = []
    for i, (_x, y) in enumerate(spans):
        x = 0 if i == 0 else fixed[-1][1]
        y = len(text) if i == len(spans) - 1 else y
        fixed.append((x, y))
    return fixed

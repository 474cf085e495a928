"""Authored emphasis (pure): ``**关键词**`` in a segment's text, or its ``emphasis`` list, as
character spans of the spoken text. The marks are taken out of the text at the door, so
neither a subtitle track nor an engine ever sees an asterisk; the spans then keep each keyword
whole in the layout (text/analysis.py) and draw it in the style's emphasis colour and size
(subtitles/karaoke.py, writers.py).

A segment's ``emphasis`` holds items of two kinds: a string (each whole occurrence of it in
the text) or a ``[start, end]`` pair (a half-open span of character offsets into the text,
as the Markdown marks become)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

MARK = "**"
MAX_EMPHASIS = 50  # items a segment may hold
Span = tuple[int, int]


def strip_marks(text: str) -> tuple[str, list[Span]]:
    """``text`` without its ``**`` marks, and the spans they enclosed (blanks just inside a
    mark left out). ValueError when a mark does not close or encloses nothing."""
    parts = text.split(MARK)
    if len(parts) % 2 == 0:
        at = text.rfind(MARK)
        raise ValueError(
            f"emphasis markup '**' at character {at + 1} does not close: mark a keyword "
            "as **关键词**"
        )
    plain, spans = "", []
    for i, part in enumerate(parts):
        if i % 2:
            if not part.strip():
                raise ValueError(f"emphasis markup '**{part}**' marks no word")
            lead = len(part) - len(part.lstrip())
            spans.append((len(plain) + lead, len(plain) + len(part.rstrip())))
        plain += part
    return plain, spans


def spans_of(text: str, items: Sequence[str | Sequence[int]]) -> tuple[Span, ...]:
    """The spans ``items`` name in ``text``, in order. ValueError naming the item when a
    string is not in the text, a pair is not a span of it, or two overlap."""
    found: list[Span] = []
    for item in items:
        if isinstance(item, str):
            word = item.strip()
            at = text.find(word) if word else -1
            if at < 0:
                raise ValueError(f"{item!r:.60} is not in the segment's text")
            while at >= 0:
                found.append((at, at + len(word)))
                at = text.find(word, at + len(word))
            continue
        a, b = item
        if not 0 <= a < b <= len(text):
            raise ValueError(
                f"[{a}, {b}] is not a span of the segment's text (0-{len(text)}, start before end)"
            )
        found.append((a, b))
    found.sort()
    for (a, b), (c, d) in itertools.pairwise(found):
        if c < b:
            raise ValueError(f"{text[a:b]!r:.40} and {text[c:d]!r:.40} overlap")
    return tuple(found)


def marked(text: str, spans: Sequence[Span]) -> str:
    """``text`` with ``**`` around each span: the Markdown form of a segment's emphasis."""
    out, at = "", 0
    for a, b in sorted(spans):
        out += text[at:a] + MARK + text[a:b] + MARK
        at = b
    return out + text[at:]


def alnum_ranges(text: str, spans: Sequence[Span], start: int, end: int) -> tuple[Span, ...]:
    """The spans inside ``text[start:end]`` (a cue's source) as ranges of its letters and
    digits (the n-th alphanumeric character of the cue): the display changes punctuation and
    spaces only, so the same ranges find the keyword in the cue's lines (``alnum_spots``)."""
    out = []
    for a, b in spans:
        a, b = max(a, start), min(b, end)
        if a >= b:
            continue
        first = sum(ch.isalnum() for ch in text[start:a])
        count = sum(ch.isalnum() for ch in text[a:b])
        if count:
            out.append((first, first + count))
    return tuple(out)


def alnum_spots(lines: Sequence[str], ranges: Sequence[Span]) -> list[list[Span]]:
    """Per line, where ``ranges`` (alphanumeric ranges over all the lines) fall: (start,
    end) character offsets, the marks between a keyword's letters included."""
    out: list[list[Span]] = []
    seen = 0
    for line in lines:
        where = [i for i, ch in enumerate(line) if ch.isalnum()]
        mine = []
        for a, b in ranges:
            lo, hi = max(a - seen, 0), min(b - seen, len(where))
            if lo < hi:
                mine.append((where[lo], where[hi - 1] + 1))
        out.append(mine)
        seen += len(where)
    return out

"""Word-by-word captions (pure): when each word of a segment is spoken, and the ASS override
tags that draw it.

Words are the layout's own: jieba words for Chinese (the word segmenter), Latin words and
numbers as the tokenizer reads them. Each is timed from the engine's boundaries (source
spans with times, as ``segment.source_words`` maps them): a boundary that is the word (edge's
WordBoundary) or parts of it (the neural voice's syllables) gives its onset exactly; a
boundary holding several words (espeak speaks whole phrases) is shared among them by
syllable count. The highlight is drawn from the first millisecond at or after the onset, so
it never shows before the word's audio.

Modes: ``static`` (the cue as it always was), ``highlight`` (the whole cue shows, the word
being spoken in the highlight colour: ``\\t`` colour switches, so libass draws exactly one
word highlighted; ``\\k`` karaoke would leave every spoken word in the primary colour) and
``reveal`` (each word appears as it is spoken: its alpha switches from hidden, and the hidden
words still hold their place, so the lines never move)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from service.domain.style import CAPTIONS, rgba
from service.domain.text import Segmenter, syllables, tokenize

Captions = Literal["static", "highlight", "reveal", "box", "pop"]
CAPTION_MODES: tuple[str, ...] = CAPTIONS
Bound = tuple[int, int, int, int]  # source start, end, start ms, end ms


@dataclass(frozen=True, slots=True)
class TimedWord:
    """A word of a segment's text (a character span) and when it is spoken, in ms."""

    start: int
    end: int
    text: str
    start_ms: int
    end_ms: int


# The pause a reader makes at a mark inside a spoken phrase, in syllables (espeak says
# 先看目录，再翻书 as one phrase with its comma pause; the enumeration comma is shorter).
PAUSES = {"、": 1.0, "，": 2.0, ",": 2.0, "；": 2.0, ";": 2.0, "：": 2.0, ":": 2.0}
PAUSES |= dict.fromkeys("。！？!?", 3.0)
_CLOSING = "”」』）)》"


def _pauses(text: str) -> float:
    return sum(PAUSES.get(ch, 0.0) for ch in text)


def _weight(text: str, language: str) -> float:
    """How long ``text`` takes to say, in syllables: its own, and a pause at each clause
    mark that more speech follows."""
    spoken = text.rstrip().rstrip("".join(PAUSES) + _CLOSING)
    return syllables(text, language) + _pauses(spoken)


def _time_at(text: str, bound: Bound, pos: int, language: str) -> float:
    """When the speech of ``bound`` reaches character ``pos``: its span shared out by
    syllables and pauses (by characters where it has neither)."""
    a, b, t0, t1 = bound
    pos = min(max(pos, a), b)
    total = _weight(text[a:b], language)
    before = text[a:pos]
    done = syllables(before, language) + _pauses(before)
    share = min(1.0, done / total) if total > 0 else (pos - a) / max(1, b - a)
    return t0 + (t1 - t0) * share


def timed_words(
    text: str, bounds: Sequence[Bound], language: str, segment: Segmenter | None = None
) -> list[TimedWord]:
    """Every word of ``text`` with its onset and end. A word no boundary covers (not spoken)
    gets no time of its own: it starts and ends where the word before it ends."""
    ordered = sorted(bounds)
    out: list[TimedWord] = []
    for tok in tokenize(text, segment):
        if tok.kind not in ("cjk", "word"):
            continue
        a, b = tok.start, tok.start + len(tok.text)
        over = [w for w in ordered if w[0] < b and w[1] > a]
        if not over:  # unspoken: never highlighted, revealed with the word before
            at = out[-1].end_ms if out else 0
            out.append(TimedWord(a, b, tok.text, at, at))
            continue
        onset = math.ceil(_time_at(text, over[0], a, language) - 1e-6)
        end = math.ceil(_time_at(text, over[-1], b, language) - 1e-6)  # the next one's onset
        out.append(TimedWord(a, b, tok.text, onset, max(onset, end)))
    return out


def cue_words(words: Sequence[TimedWord], span: tuple[int, int]) -> tuple[TimedWord, ...]:
    """The words a cue of source ``span`` shows."""
    return tuple(w for w in words if span[0] <= w.start < span[1])


# -- ASS ----------------------------------------------------------------------------------


def ass_start(ms: int) -> int:
    """An event's start as an ASS file keeps it (centiseconds, rounded as pysubs2 writes)."""
    ms = max(0, ms)
    return (ms + 5) // 10 * 10


def _bgr(color: str) -> str:
    r, g, b, _ = rgba(color)
    return f"&H{b:02X}{g:02X}{r:02X}&"


def _alpha(color: str) -> str:
    return f"&H{255 - rgba(color)[3]:02X}&"


@dataclass(frozen=True, slots=True)
class Ink:
    """The colours a karaoke line switches between (``#RRGGBB[AA]``), and the look of
    authored emphasis (its colour, and its size times the text's)."""

    color: str
    highlight: str
    outline: str
    shadow: str
    emphasis: str = "#FF9F0A"
    scale: float = 1.0
    box: str = "#FF2D55"


def _align(line: str, words: Sequence[TimedWord], k: int) -> tuple[list[tuple[int, int]], int]:
    """Where words ``k``.. show in ``line``: (start, end) per word found in order, matching
    their letters and digits (the display changes only punctuation and spaces), and the
    index of the first word not on this line."""
    found: list[tuple[int, int]] = []
    pos = 0
    while k < len(words):
        keys = [c for c in words[k].text if c.isalnum()]
        at, first, i = pos, pos, 0
        while i < len(keys) and at < len(line):
            ch = line[at]
            if ch == keys[i]:
                first = at if i == 0 else first
                i += 1
            elif ch.isalnum():
                break
            at += 1
        if i < len(keys):
            break
        tail = words[k].text[len(words[k].text.rstrip("%+'’")) :]  # 40%, C++
        at += len(tail) if line.startswith(tail, at) else 0
        found.append((first, at))
        pos = at
        k += 1
    return found, k


def _cut(piece: str) -> str:
    """A piece that an override block follows: a trailing backslash would escape its brace."""
    return piece + "\u2060" if piece.endswith("\\") else piece


def _switch(at: int, tags: str) -> str:
    return tags if at <= 0 else f"\\t({at},{at},{tags})"


def timestamped_lines(
    lines: Sequence[str],
    words: Sequence[TimedWord],
    cue: tuple[int, int],
    escape: Callable[[str], str],
    stamp: Callable[[int], str],
) -> list[str] | None:
    """A cue's lines as WebVTT's karaoke writes them: ``<stamp>`` before each word spoken
    after the cue starts (inside it, in increasing order, as the format requires), the text
    between through ``escape``; players (and the studio's preview) tell the spoken words by
    them. None when the words cannot all be found in the lines (the cue is written plain)."""
    out: list[str] = []
    k, last = 0, cue[0]
    for line in lines:
        spots, nxt = _align(line, words, k)
        text, cursor = "", 0
        for j, (a, _) in enumerate(spots):
            at = words[k + j].start_ms
            if last < at < cue[1]:
                text += f"{escape(line[cursor:a])}<{stamp(at)}>"
                cursor, last = a, at
        out.append(text + escape(line[cursor:]))
        k = nxt
    return out if k >= len(words) else None

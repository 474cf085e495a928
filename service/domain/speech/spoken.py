"""What an engine is given, and how its offsets map back to the script's text.

A ``SpokenText`` is a list of pieces. Each piece pairs a span of the display text with the
span of the spoken text that reads it; pieces are contiguous on both sides, so every offset of
either text falls in exactly one piece and piece edges map to each other exactly."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

# The pinyin reader's spacing: one space between the syllables of a word, two after a word
# (jieba's words). Engines that read whitespace as one gap (espeak-ng, zh-baker) hear no
# difference; Kokoro joins a word's syllables, as misaki wrote its training text.
SYLLABLE_GAP = " "
WORD_END = "  "

# What a piece of spoken text is: Mandarin (pinyin or hanzi), English words, a pause, or
# text passed through unchanged.
Kind = str  # "zh" | "en" | "pause" | "same"


@dataclass(frozen=True, slots=True)
class Piece:
    src_start: int
    src_end: int
    spk_start: int
    spk_end: int
    kind: Kind
    rewritten: bool  # the spoken form differs from the source beyond spacing and case


@dataclass
class SpokenText:
    source: str
    text: str
    pieces: list[Piece]
    warnings: list[str] = field(default_factory=list)

    @property
    def rewrites(self) -> int:
        """How many source spans the front-end changed (numbers, symbols, lexicon, ...)."""
        return sum(p.rewritten for p in self.pieces)

    def _locate(self, offset: int, spoken: bool) -> int:
        keys = [p.spk_start if spoken else p.src_start for p in self.pieces]
        return max(0, bisect.bisect_right(keys, offset) - 1)

    def to_spoken(self, offset: int) -> int:
        """A display offset as a spoken offset; an offset inside a piece snaps to the nearer
        edge of that piece (a piece is read as a whole)."""
        return self._map(offset, spoken=False)

    def to_source(self, offset: int) -> int:
        """A spoken offset (e.g. an engine's word boundary) as a display offset."""
        return self._map(offset, spoken=True)

    def _map(self, offset: int, spoken: bool) -> int:
        size = len(self.text) if spoken else len(self.source)
        other = len(self.source) if spoken else len(self.text)
        if not self.pieces or offset >= size:
            return other
        if offset <= 0:
            return 0
        p = self.pieces[self._locate(offset, spoken)]
        a, b = (p.spk_start, p.spk_end) if spoken else (p.src_start, p.src_end)
        x, y = (p.src_start, p.src_end) if spoken else (p.spk_start, p.spk_end)
        if offset == a:
            return x
        if not p.rewritten and b - a == y - x:
            return x + offset - a  # unchanged text maps character for character
        return y if (offset - a) * 2 >= (b - a) else x

    def span_to_source(self, start: int, end: int) -> tuple[int, int]:
        return self.to_source(start), self.to_source(end)

    def spans_to_spoken(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Display phrase spans as spoken spans (empty ones dropped)."""
        out = [(self.to_spoken(a), self.to_spoken(b)) for a, b in spans]
        return [(a, b) for a, b in out if b > a]


class Builder:
    """Appends pieces while tracking offsets on both sides."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: list[str] = []
        self.pieces: list[Piece] = []
        self.length = 0
        self.warnings: list[str] = []

    def add(self, src_start: int, src_end: int, spoken: str, kind: Kind, rewritten: bool) -> None:
        self.parts.append(spoken)
        self.pieces.append(
            Piece(src_start, src_end, self.length, self.length + len(spoken), kind, rewritten)
        )
        self.length += len(spoken)

    def build(self) -> SpokenText:
        return SpokenText(self.source, "".join(self.parts), self.pieces, self.warnings)

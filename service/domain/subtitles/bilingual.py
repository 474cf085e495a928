"""A supplied translation split across its segment's cues (pure).

The translation is cut at word boundaries only, preferring sentence ends, then clause marks
(, ; : and dashes), then a plain space, so that each cue's share of the English is where
its share of the Chinese is (by reading characters, cumulatively); each piece is then laid
out by the English line rules (``wrap`` with language "en": 42 characters, at most 2 lines).
Nothing is invented: a cue gets a piece of the text given, or nothing.
"""

from __future__ import annotations

import math
import re

from service.domain.text import is_abbreviation, wrap
from service.domain.text.tables import EN_ARTICLES, EN_PREPOSITIONS

EN_LINE_CHARS = 42
EN_MAX_LINES = 2
SENTENCE_CUT = 0.0
CLAUSE_CUT = 1.5
WORD_CUT = 5.0  # mid-clause: only when the proportions or the lines leave no better cut
BINDING_CUT = 4.0  # more, after an article or a preposition ("of | the model")
INSIDE_CUT = 4.0  # more, inside quotes or brackets (a title cut in two)
DRIFT = 12.0  # per unit of the whole's fraction a cut lies from the Chinese one
EMPTY = 8.0  # a cue left without English while its neighbours have some
OVERFLOW = 1000.0  # a piece that does not fit its lines
EN_CPS = 20.0  # English reading speed, characters a second
SPEED = 0.5  # per character a second over it
_SENTENCE_END = re.compile(r"[.!?…][\"')\]”’]*$")
_CLAUSE_END = re.compile(r"([,;:]|[—–]|--)[\"')\]”’]*$")


def curly_quotes(text: str) -> str:
    """Straight double quotes as opening and closing ones, in turn: display punctuation (as
    zh-Hans gets its own), so that a quote is never taken for the wrong side of a break."""
    parts = text.split('"')
    return "".join(p + ("“" if k % 2 == 0 else "”") for k, p in enumerate(parts[:-1])) + parts[-1]


def _depths(words: list[str]) -> list[int]:
    """How many quotes or brackets are open after each word."""
    depth, out = 0, []
    for w in words:
        depth = max(0, depth + sum(w.count(c) for c in "“(［[") - sum(w.count(c) for c in "”)］]"))
        out.append(depth)
    return out


def _cut_cost(word: str, nxt: str, inside: bool = False) -> float:
    """What a cut between ``word`` and the next word costs (``inside`` a quote or brackets:
    never at a clause mark, dearer than a plain space)."""
    if inside:
        return WORD_CUT + INSIDE_CUT
    if _SENTENCE_END.search(word) and not is_abbreviation(word):
        return SENTENCE_CUT
    if _CLAUSE_END.search(word) or nxt[:1] in "(—–" or nxt in ("-", "--"):
        return CLAUSE_CUT
    bare = word.lower().strip("\"'(“‘")
    return WORD_CUT + (BINDING_CUT if bare in EN_ARTICLES | EN_PREPOSITIONS else 0.0)


def _lines_needed(lengths: list[int], limit: int) -> int:
    """Lines a greedy wrap of words of these lengths takes (a word longer than the limit
    takes a line of its own)."""
    lines, used = 0, 0
    for n in lengths:
        if used and used + 1 + n <= limit:
            used += 1 + n
        else:
            lines, used = lines + 1, n
    return lines


class _Split:
    """The costs of cutting one translation's words into pieces, one piece per cue."""

    def __init__(
        self,
        words: list[str],
        weights: list[float],
        line_chars: int,
        max_lines: int,
        seconds: list[float] | None,
    ) -> None:
        self.words, self.line_chars, self.max_lines, self.seconds = (
            words,
            line_chars,
            max_lines,
            seconds,
        )
        self.n, self.m = len(weights), len(words)
        total_w = sum(weights) or float(self.n)
        self.want = [sum(weights[: k + 1]) / total_w for k in range(self.n)]
        self.ends = [0]
        for w in words:
            self.ends.append(self.ends[-1] + len(w) + 1)
        self.total = self.ends[-1] - 1
        depth = _depths(words)
        self.cut = [0.0] + [
            _cut_cost(words[b - 1], words[b], depth[b - 1] > 0) for b in range(1, self.m)
        ]
        self.cut.append(0.0)
        self.checked: dict[tuple[int, int], bool] = {}

    def chars(self, a: int, b: int) -> int:
        return self.ends[b] - self.ends[a] - 1

    def fits(self, a: int, b: int) -> bool:
        """A greedy fit, and for a piece of more than one line the real layout: its lines
        broken where the English rules allow (not after "the" or "in")."""
        words = self.words[a:b]
        if _lines_needed([len(w) for w in words], self.line_chars) > self.max_lines:
            return False
        if self.chars(a, b) <= self.line_chars:
            return True
        if (a, b) not in self.checked:
            lines = english_lines(" ".join(words), self.line_chars, self.max_lines)
            self.checked[a, b] = len(lines) <= self.max_lines and not any(
                line.split()[-1].lower() in EN_ARTICLES | EN_PREPOSITIONS for line in lines[:-1]
            )
        return self.checked[a, b]

    def piece(self, k: int, a: int, b: int) -> float:
        """Piece k as words[a:b]: its cut's distance from the Chinese one, its cut, an empty
        piece, reading speed, lines that do not fit."""
        cost = 0.0
        if k < self.n - 1:
            cost = DRIFT * abs((self.ends[b] - (1 if b else 0)) / self.total - self.want[k])
        if a == b:
            return cost + EMPTY
        if self.seconds is not None:
            cps = self.chars(a, b) / max(0.2, self.seconds[k])
            cost += SPEED * max(0.0, cps - EN_CPS)
        if not self.fits(a, b):
            cost += OVERFLOW
        return cost + (self.cut[b] if b < self.m else 0.0)

    def best(self) -> list[str] | None:
        """The cheapest pieces (dynamic programming over the cut after each piece)."""
        n, m = self.n, self.m
        best = [[math.inf] * (m + 1) for _ in range(n + 1)]
        back = [[0] * (m + 1) for _ in range(n + 1)]
        best[0][0] = 0.0
        longest = self.line_chars * (self.max_lines + 1)
        for k in range(n):
            for b in range(m + 1) if k < n - 1 else [m]:
                lo = b
                while lo > 0 and self.ends[b] - self.ends[lo - 1] <= longest:
                    lo -= 1  # pieces far over their lines are never worth trying
                for a in range(lo, b + 1):
                    if best[k][a] == math.inf:
                        continue
                    c = best[k][a] + self.piece(k, a, b)
                    if c < best[k + 1][b]:
                        best[k + 1][b], back[k + 1][b] = c, a
        if best[n][m] == math.inf:
            return None
        pieces: list[str] = []
        b = m
        for k in range(n, 0, -1):
            a = back[k][b]
            pieces.append(" ".join(self.words[a:b]))
            b = a
        return pieces[::-1]


def split_translation(
    translation: str,
    weights: list[float],
    line_chars: int = EN_LINE_CHARS,
    max_lines: int = EN_MAX_LINES,
    seconds: list[float] | None = None,
) -> list[str]:
    """``translation`` cut into ``len(weights)`` consecutive pieces (some maybe empty), the
    cut after piece k as near as the cut costs allow to the fraction of the weights up to k.
    ``seconds``: how long each cue is up, to keep the English under its reading speed
    (20 characters a second). The pieces joined with spaces are the translation (its
    straight quotes curled)."""
    words = curly_quotes(translation).split()
    n = len(weights)
    if n == 0:
        return []
    whole = [" ".join(words)] + [""] * (n - 1)
    if n == 1 or not words:
        return whole
    # None: one word longer than every window; it is kept whole.
    return _Split(words, weights, line_chars, max_lines, seconds).best() or whole


def english_lines(
    text: str, line_chars: int = EN_LINE_CHARS, max_lines: int = EN_MAX_LINES
) -> tuple[str, ...]:
    """A piece of translation as English subtitle lines: the cheapest breaks by the English
    rules, one more line when it cannot fit, else as one line."""
    if not text.strip():
        return ()
    got = wrap(text, line_chars, max_lines, None, "en") or wrap(
        text, line_chars, max_lines + 1, None, "en"
    )
    return tuple(got or [" ".join(text.split())])

"""Pure text logic: tokens, syllable estimates, phrase splitting and subtitle line breaking.

A *span* is a half-open ``(start, end)`` range of character offsets into a segment's text.
Phrases partition the text into contiguous spans, so joining cue texts loses nothing.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(
    rf"(?P<cjk>[{_CJK}])"
    r"|(?P<word>[A-Za-z0-9](?:[A-Za-z0-9_'’.+\-/%]*[A-Za-z0-9_%+])?)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)",
    re.S,
)
SENTENCE_END = set("。！？!?…")
CLAUSE_END = set("，；：、,;:") | SENTENCE_END | {"—", "."}
OPENERS = set("「『（(“‘《〈【[")
# Punctuation a Chinese cue drops at its end (the DESIGN subtitle rules).
ZH_TRAILING = "，。、；,;"


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    kind: str  # cjk | word | space | punct
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


# Splits a run of CJK characters into its words (a dictionary segmenter, given by an adapter).
Segmenter = Callable[[str], list[str]]


def tokenize(text: str, segment: Segmenter | None = None) -> list[Token]:
    """Tokens of ``text``. Without ``segment`` every CJK character is a token (a break may fall
    between any two); with it, each CJK word is one token, so no break falls inside a word."""
    tokens = [Token(m.group(), m.lastgroup or "punct", m.start()) for m in _TOKEN.finditer(text)]
    if segment is None:
        return tokens
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        if tokens[i].kind != "cjk":
            out.append(tokens[i])
            i += 1
            continue
        j = i
        while (
            j < len(tokens)
            and tokens[j].kind == "cjk"
            and tokens[j].start == tokens[i].start + (j - i)
        ):
            j += 1
        run = text[tokens[i].start : tokens[j - 1].end]
        words = segment(run)
        if "".join(words) != run or not all(words):
            words = list(run)  # a segmenter that does not partition the run is ignored
        pos = tokens[i].start
        for word in words:
            out.append(Token(word, "cjk", pos))
            pos += len(word)
        i = j
    return out


def detect_language(text: str) -> str:
    """'zh' when at least a fifth of the letters are CJK characters, else 'en'."""
    tokens = tokenize(text)
    cjk = sum(len(t.text) for t in tokens if t.kind == "cjk")
    latin = sum(len(t.text) for t in tokens if t.kind == "word")
    return "zh" if cjk and cjk * 5 >= cjk + latin // 4 else "en"


def _latin_syllables(run: str) -> int:
    if len(run) <= 1 or (run.isupper() and len(run) <= 5):
        return len(run)  # acronyms are spelled out: G-R-P-O
    groups = re.findall(r"[aeiouy]+", run.lower())
    n = len(groups) - (1 if run.lower().endswith("e") and len(groups) > 1 else 0)
    return max(1, n)


def syllables(text: str, language: str) -> float:
    """Estimated spoken syllables: one per CJK character, vowel groups for Latin words."""
    per_digit = 1.0 if language == "zh" else 1.5
    total = 0.0
    for tok in tokenize(text):
        if tok.kind == "cjk":
            total += len(tok.text)
        elif tok.kind == "word":
            for run in re.findall(r"[0-9]+|[A-Za-z]+|\.(?=[0-9])", tok.text):
                if run == ".":
                    total += 1
                elif run.isdigit():
                    total += per_digit * len(run)
                else:
                    total += _latin_syllables(run)
    return total


def pause_after(phrase: str) -> int:
    """Milliseconds of silence a reader leaves after this phrase, from its final punctuation."""
    tail = phrase.rstrip()
    if not tail:
        return 0
    last = tail[-1]
    if last in SENTENCE_END or (last == "." and not tail[-2:-1].isdigit()):
        return 350
    if last in CLAUSE_END:
        return 200
    return 0


def _breaks(tokens: list[Token]) -> list[int]:
    """Offsets where a line or phrase may break: between tokens, never before punctuation
    (spaces skipped), never after an opening bracket, never inside a Latin word (a word is
    one token)."""
    out: list[int] = []
    for i in range(1, len(tokens)):
        nxt = next((t for t in tokens[i:] if t.kind != "space"), None)
        if nxt is None or (nxt.kind == "punct" and nxt.text not in OPENERS):
            continue
        if tokens[i - 1].text in OPENERS:
            continue
        out.append(tokens[i].start)
    return out


def _clause_ends(text: str, tokens: list[Token]) -> list[int]:
    ends: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind != "punct" or tok.text not in CLAUSE_END:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.text == "." and nxt is not None and nxt.kind != "space":
            continue  # "v1.2" or "e.g" inside a word-ish run
        if (
            nxt is not None
            and nxt.kind == "punct"
            and nxt.text in CLAUSE_END | {"”", "」", "）", ")"}
        ):
            continue  # break after the whole run of punctuation: "——", "。」"
        end = tok.end
        while end < len(text) and text[end].isspace():
            end += 1
        if 0 < end < len(text):
            ends.append(end)
    return ends


def display_len(text: str) -> int:
    return len(text.strip())


def _split_long(text: str, start: int, end: int, limit: int, breaks: list[int]) -> list[int]:
    """Cut points inside [start, end) so each piece is at most ``limit`` characters, balanced."""
    inner = [b for b in breaks if start < b < end]
    cuts: list[int] = []
    pos = start
    while display_len(text[pos:end]) > limit:
        later = [b for b in inner if b > pos]
        if not later:
            break
        target = pos + (end - pos) / math.ceil(display_len(text[pos:end]) / limit)
        # A word longer than the limit stands alone rather than being cut.
        fitting = [b for b in later if display_len(text[pos:b]) <= limit] or later[:1]
        # Between words reads better than between two CJK characters of one word.
        pos = min(fitting, key=lambda b: abs(b - target) - (6 if text[b - 1].isspace() else 0))
        cuts.append(pos)
    return cuts


def split_phrases(text: str, limit: int, segment: Segmenter | None = None) -> list[tuple[int, int]]:
    """Partition ``text`` into spans that end at punctuation and fit one subtitle line each."""
    tokens = tokenize(text, segment)
    breaks = _breaks(tokens)
    bounds = [0, *_clause_ends(text, tokens), len(text)]
    spans: list[tuple[int, int]] = []
    for a, b in itertools.pairwise(bounds):
        cuts = [a, *_split_long(text, a, b, limit, breaks), b]
        spans += [(x, y) for x, y in itertools.pairwise(cuts) if text[x:y].strip()]
    # Spans must cover the text end to end: give any whitespace-only piece to its neighbour.
    fixed: list[tuple[int, int]] = []
    for i, (x, y) in enumerate(spans):
        x = 0 if i == 0 else fixed[-1][1]
        y = len(text) if i == len(spans) - 1 else y
        fixed.append((x, y))
    return fixed


def single_word(text: str, segment: Segmenter | None = None) -> bool:
    """One word with at most punctuation around it: it may exceed a line, as it cannot break."""
    return len([t for t in tokenize(text, segment) if t.kind in ("word", "cjk")]) == 1


def wrap(
    text: str, limit: int, max_lines: int = 2, segment: Segmenter | None = None
) -> list[str] | None:
    """Break ``text`` into at most ``max_lines`` lines of at most ``limit`` characters.

    Prefers breaks after punctuation, then balanced lines. Returns None when it cannot fit,
    except that a single word longer than the limit is allowed a line of its own.
    """
    text = text.strip()
    if display_len(text) <= limit:
        return [text]
    if max_lines <= 1:
        return [text] if single_word(text, segment) else None
    tokens = tokenize(text, segment)
    best: tuple[float, list[str]] | None = None
    for b in _breaks(tokens):
        head, tail = text[:b].strip(), text[b:].strip()
        if not head or not tail:
            continue
        head_lines = wrap(head, limit, 1, segment)
        tail_lines = wrap(tail, limit, max_lines - 1, segment)
        if head_lines is None or tail_lines is None:
            continue
        score = abs(len(head) - max(len(x) for x in tail_lines)) - (
            6 if text[b - 1].isspace() else 0
        )
        if head[-1] in CLAUSE_END:
            score -= limit  # a break after punctuation beats any balance
        if best is None or score < best[0]:
            best = (score, head_lines + tail_lines)
    return best[1] if best else None


def strip_trailing(text: str, language: str) -> str:
    text = text.strip()
    if language == "zh":
        text = text.rstrip(ZH_TRAILING + " \t\n\u3000")
    return text


def comparable(text: str) -> str:
    """Text without punctuation and spaces: what must survive subtitle layout unchanged."""
    return "".join(t.text for t in tokenize(text) if t.kind in ("cjk", "word"))

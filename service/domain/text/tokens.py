"""Tokens of a segment text, the language, syllables and the pause after a phrase."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_CJK_RE = re.compile(f"[{_CJK}]")
_TOKEN = re.compile(
    rf"(?P<cjk>[{_CJK}])"
    # A Latin word or number: "sum-preserving", "1.02T", "3.2%", "1,000", "10:30".
    r"|(?P<word>[A-Za-z0-9](?:[A-Za-z0-9_'’.+\-/%]|(?<=[0-9])[,:](?=[0-9]))*[A-Za-z0-9_%+]|[A-Za-z0-9])"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)",
    re.S,
)
SENTENCE_END = set("。！？!?…")
CLAUSE_END = set("，；：、,;:") | SENTENCE_END | {"—", "."}
OPENERS = set("「『（(“‘《〈【[")
CLOSERS = set("」』）)”’》〉】]")
COMMAS = set("，,")
# Punctuation a Chinese cue drops at its end (kept for callers of strip_trailing).
ZH_TRAILING = "，。、；：,;:"

NEVER = 100.0  # a break an editor sends back
AVOID = 20.0  # a break taken only when nothing better fits
SINGLE_PAIR = 8.0  # extra for a break between two single-character atoms (a split OOV word?)
LOOKALIKE = 3.0  # extra for a line opening on a word that starts like a particle
LOOKS_CLOSING = set("的了着过吗呢吧里上中")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    kind: str  # cjk | word | space | punct
    start: int
    tag: str = ""  # part of speech (jieba's tags for CJK words; m for numbers, eng for Latin)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


# Splits a run of CJK characters into its words, with or without a part-of-speech tag each
# (a dictionary segmenter, given by an adapter: service.adapters.text.segmenter.tagged_words).
Segmenter = Callable[[str], Sequence[str | tuple[str, str]]]


def tokenize(text: str, segment: Segmenter | None = None) -> list[Token]:
    """Tokens of ``text``. Without ``segment`` every CJK character is a token (a break may fall
    between any two); with it, each CJK word is one token, so no break falls inside a word."""
    tokens = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "punct"
        tag = ""
        if kind == "word":
            tag = "m" if m.group()[0].isdigit() else "eng"
        elif kind == "punct":
            tag = "x"
        tokens.append(Token(m.group(), kind, m.start(), tag))
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
        words = [(w, "") if isinstance(w, str) else (w[0], w[1]) for w in segment(run)]
        if "".join(w for w, _ in words) != run or not all(w for w, _ in words):
            words = [(c, "") for c in run]  # a segmenter that does not partition is ignored
        pos = tokens[i].start
        for word, tag in words:
            out.append(Token(word, "cjk", pos, tag))
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

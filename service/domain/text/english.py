"""English sentence boundaries that know abbreviations, and the English breaks that read badly
in context: after a title or ``e.g.``, after ``U.S.`` before its noun, inside an amount."""

from __future__ import annotations

import itertools
import re

from service.domain.speech.en_tables import ABBREVIATIONS, BINDING_ABBREVIATIONS, PER
from service.domain.text.tokens import NEVER, Token

# U.S., U.K., a.m., e.g.: single letters with periods (the tokenizer stops before the last).
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_SAID_WITH_PERIOD = {a[:-1] for a in ABBREVIATIONS if a.endswith(".")}


def is_abbreviation(word: str) -> bool:
    """``U.S.``, ``e.g.``, ``Dr.``, ``vs.``: a period that does not end a sentence by itself."""
    return word.endswith(".") and (
        word[:-1] in _SAID_WITH_PERIOD or bool(_INITIALS.fullmatch(word[:-1]))
    )


def merge_abbreviations(tokens: list[Token], text: str) -> list[Token]:
    """A word and the period right after it as one token when together they are an
    abbreviation, so the period is neither a clause end nor a sentence end."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            tok.kind == "word"
            and nxt is not None
            and nxt.text == "."
            and nxt.start == tok.end
            and is_abbreviation(tok.text + ".")
        ):
            out.append(Token(text[tok.start : nxt.end], "word", tok.start, tok.tag))
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def is_per_unit(word: str) -> bool:
    """``requests/min``, ``GB/s``, ``tokens/s``: a unit per unit (said "per")."""
    left, slash, right = word.partition("/")
    return bool(slash) and bool(left) and right in PER


def en_penalties(tokens: list[Token], costs: dict[int, float]) -> None:
    """No break after a title or ``e.g.`` (``Dr. | Chen``), nor after ``U.S.`` before a
    lower-case word (an adjective cut from its noun); an abbreviation before a capital that
    is no title ends a sentence there (``in the U.S. | Then``)."""
    words = [t for t in tokens if t.kind != "space"]
    for tok, nxt in itertools.pairwise(words):
        if tok.kind != "word" or not is_abbreviation(tok.text) or nxt.start not in costs:
            continue
        if tok.text in BINDING_ABBREVIATIONS or not nxt.text[:1].isupper():
            costs[nxt.start] = NEVER
        elif nxt.text[:1].isupper():
            costs[nxt.start] = 0.0


def ends_sentence(tokens: tuple[Token, ...], end: int) -> bool:
    """Whether the text up to ``end`` ends a sentence: its last token (closing quotes and
    brackets aside) is a sentence mark, a period that is not an abbreviation's, or an
    abbreviation followed by a capital."""
    before = [t for t in tokens if t.end <= end and t.kind != "space"]
    while before and before[-1].text in "」』）)”’":
        before.pop()
    if not before:
        return True
    last = before[-1]
    if last.kind == "punct":
        return last.text in "。！？!?…."
    if last.kind == "word" and is_abbreviation(last.text):
        after = [t for t in tokens if t.start >= end and t.kind != "space"]
        return (not after or after[0].text[:1].isupper()) and (
            last.text not in BINDING_ABBREVIATIONS
        )
    return False

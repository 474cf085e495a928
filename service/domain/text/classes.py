"""Which classes an atom belongs to, and what a break between two atoms costs."""

from __future__ import annotations

import re

from service.domain.text.english import is_per_unit
from service.domain.text.tables import (
    _CJK_DIGITS,
    _EN_ADJ_SUFFIXES,
    _LATIN_UNITS,
    _NOUN_TAGS,
    BREAK_COSTS,
    CONJUNCTIONS,
    EN_ADJECTIVES,
    EN_ARTICLES,
    EN_AUX,
    EN_CONJUNCTIONS,
    EN_PREPOSITIONS,
    EN_QUANTIFIERS,
    EN_UNITS,
    FORWARD,
    LOCALIZERS,
    PARTICLES,
    SUFFIXES,
    TAG_FIXES,
    UNITS,
)
from service.domain.text.tokens import CLAUSE_END, OPENERS, SENTENCE_END, Token

# Signs that belong to the number after them: a break never falls right after one.
PREFIXES = set("$€£¥~≈<>≤≥±#")


def _punct_classes(w: str) -> frozenset[str]:
    if w in OPENERS:
        return frozenset({"open"})
    if w in PREFIXES:
        return frozenset({"prefix"})
    out = {"close"}
    if w in SENTENCE_END:
        out.add("stop")
    elif w == "、":
        out.add("list")
    elif w in "—-":
        out.add("dash")
    elif w in CLAUSE_END:
        out.add("comma")
    return frozenset(out)


def _zh_classes(tok: Token, prev: Token | None) -> frozenset[str]:
    w = tok.text
    tag = TAG_FIXES.get(w, tok.tag)
    if tok.kind == "punct":
        return _punct_classes(w)
    if tok.kind == "word":
        if w[0].isdigit():
            return frozenset({"num"})
        unit = w in _LATIN_UNITS and prev is not None and prev.tag == "m"
        return frozenset({"unit" if unit else "latin"})
    out: set[str] = set()
    mid = prev is not None and prev.kind != "punct"
    if w in PARTICLES and (len(w) > 1 or tag[:1] in ("u", "y", "e", "") or w in "的了着吗呢吧"):
        out.add("particle")
        if w in ("的", "之"):
            out.add("de")
    if mid and (w in LOCALIZERS or (tag == "f" and len(w) == 1)):
        out.add("localizer")
    if mid and prev is not None and prev.kind == "cjk" and w in SUFFIXES:
        out.add("suffix")
    numeric = prev is not None and (
        prev.tag == "m" or (prev.kind == "cjk" and prev.text[-1] in _CJK_DIGITS)
    )
    if (w in UNITS and numeric) or tag == "q":
        out.add("unit")
    if tag == "m" or (w[0] in _CJK_DIGITS and all(c in _CJK_DIGITS or c in UNITS for c in w)):
        out.add("num")
    if w in CONJUNCTIONS or tag == "c":
        out.add("conj")
    elif w in FORWARD or tag == "p":
        out.add("forward")
    if tag == "" and len(w) == 1 and not out:
        out.add("char")  # no tagger: a character that may be half of a word
    elif tag.startswith(_NOUN_TAGS) or (tag in ("zg", "") and not out):
        out.add("noun")
    elif tag.startswith("v"):
        out.add("verb")
    elif tag in ("a", "b"):
        out.add("adj")
    elif tag in ("d", "ad", "dg"):
        out.add("adv")
    elif tag == "r":
        out.add("pron")
    elif tag == "t":
        out.add("time")
    if w in ("的", "之"):
        out.discard("noun")
    return frozenset(out)


def _en_classes(tok: Token, prev: Token | None) -> frozenset[str]:
    w = tok.text
    if tok.kind == "punct":
        if w in OPENERS:
            return frozenset({"open"})
        if w in PREFIXES:
            return frozenset({"prefix"})
        if w in SENTENCE_END or w == ".":
            return frozenset({"close", "stop"})
        if w in "—-":
            return frozenset({"close", "dash"})
        return frozenset({"close", "comma"} if w in CLAUSE_END else {"close"})
    low = w.lower()
    out = {"word"}
    if w[0].isdigit():
        out.add("num")
        if re.fullmatch(r"\d+(?:st|nd|rd|th)", low):
            out.add("ordinal")
    if low in EN_UNITS or w in EN_UNITS or is_per_unit(w):
        out.add("unit")
    elif prev is not None and prev.tag == "m" and w.isalpha() and len(w) > 3 and low[-1] == "s":
        out.add("counted")  # 12,500 requests
    if low in EN_QUANTIFIERS:
        out.add("quant")
    if low in EN_ARTICLES:
        out.add("article")
    elif low in EN_PREPOSITIONS:
        out.add("forward")
        if low == "of":
            out.add("of")
    elif low in EN_CONJUNCTIONS:
        out.add("conj")
    elif low in EN_AUX:
        out.add("aux")
    elif low in EN_ADJECTIVES or (len(low) > 4 and low.endswith(_EN_ADJ_SUFFIXES)):
        out.add("adj")
    elif len(low) > 4 and low.endswith(("ing", "ed", "er", "est")):
        out.add("modifier")
    if not out & {"article", "forward", "conj", "aux", "num"}:
        out.add("noun")  # a content word: what a modifier before it may modify
    return frozenset(out)


def _pair_cost(left: frozenset[str], right: frozenset[str], language: str) -> float:
    for lc, rc, cost, _why in BREAK_COSTS["zh" if language == "zh" else "en"]:
        if (lc == "*" or lc in left) and (rc == "*" or rc in right):
            return cost
    return 6.0


def break_rule(left: frozenset[str], right: frozenset[str], language: str) -> str:
    """Why a break between atoms of these classes costs what it does (for reports)."""
    for lc, rc, _cost, why in BREAK_COSTS["zh" if language == "zh" else "en"]:
        if (lc == "*" or lc in left) and (rc == "*" or rc in right):
            return why
    return "elsewhere"

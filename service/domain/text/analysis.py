"""A segment text read once: tokens and the cost of a break at each offset."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from service.domain.text.classes import _en_classes, _pair_cost, _zh_classes
from service.domain.text.english import en_penalties, merge_abbreviations
from service.domain.text.tables import COORDINATORS, PARTICLES
from service.domain.text.tokens import (
    AVOID,
    CLAUSE_END,
    LOOKALIKE,
    LOOKS_CLOSING,
    NEVER,
    SINGLE_PAIR,
    Segmenter,
    Token,
    tokenize,
)
from service.domain.text.width import width, zh_punct

# Quotes and brackets whose text fits this width stay on one line (and in one cue): the
# default line of each language (a narrower layout still breaks inside, at a price).
PAIR_WIDTH = {"zh": 16.0, "en": 42.0}
PAIRS = {"《": "》", "“": "”", "（": "）", "(": ")", "「": "」", "『": "』", "【": "】"}


@dataclass(frozen=True)
class Analysis:
    """A segment's text read once: its tokens and the cost of a break at each offset where
    one may fall (the start of a non-space token that follows another)."""

    text: str
    language: str
    base: str  # the text with display punctuation (zh_punct), same length
    tokens: tuple[Token, ...]
    costs: dict[int, float]
    classes: tuple[frozenset[str], ...]  # per token
    pairs: tuple[tuple[int, int], ...] = ()  # (opener, closer) offsets of short quotes/brackets
    keep: tuple[tuple[int, int], ...] = ()  # spans never broken (authored emphasis)

    def inside_pair(self, offset: int) -> bool:
        """Whether ``offset`` falls inside a quote or bracket kept on one line."""
        return any(o < offset <= c for o, c in self.pairs)

    def inside_keep(self, offset: int) -> bool:
        """Whether a break at ``offset`` would split a span kept whole."""
        return any(a < offset < b for a, b in self.keep)


def _list_penalties(tokens: list[Token], costs: dict[int, float]) -> None:
    """Inside a list (a clause with 、) a break inside an item costs AVOID more."""
    clause: list[int] = []

    def flush() -> None:
        marks = [i for i in clause if tokens[i].text == "、"]
        if not marks:
            return
        first, last = tokens[marks[0]].start, tokens[marks[-1]].end
        for i in clause[1:]:  # the clause's first atom starts it: no item to cut
            pos = tokens[i].start
            if pos not in costs or tokens[i - 1].text == "、" or tokens[i].text == "、":
                continue
            inside = first < pos < last or 0 < first - pos <= 6 or 0 < pos - last <= 6
            if inside and not (i > 0 and tokens[i - 1].text == "、"):
                costs[pos] += AVOID

    for i, tok in enumerate(tokens):
        if tok.kind == "punct" and tok.text in CLAUSE_END and tok.text != "、":
            flush()
            clause = []
        else:
            clause.append(i)
    flush()


@lru_cache(maxsize=256)
def analyse(
    text: str,
    language: str,
    segment: Segmenter | None = None,
    keep: tuple[tuple[int, int], ...] = (),
) -> Analysis:
    """``text`` read once; no break falls inside a span of ``keep`` (an emphasised keyword,
    checked at the door to fit a line)."""
    base = zh_punct(text) if language == "zh" else text
    tokens = tokenize(base, segment)
    if language != "zh":
        tokens = merge_abbreviations(tokens, base)  # U.S., e.g., Dr.: one word each
    # Tokens keep the script's characters (zh_punct is 1:1, so offsets are shared).
    tokens = [Token(text[t.start : t.end], t.kind, t.start, t.tag) for t in tokens]
    classify = _zh_classes if language == "zh" else _en_classes
    classes: list[frozenset[str]] = []
    prev: Token | None = None
    for tok in tokens:
        if tok.kind == "space":
            classes.append(frozenset())
            continue
        # Classes see the display punctuation: a ':' between hanzi is a clause mark.
        shown = Token(base[tok.start : tok.end], tok.kind, tok.start, tok.tag)
        classes.append(classify(shown, prev))
        prev = shown
    costs: dict[int, float] = {}
    last: int | None = None
    for i, tok in enumerate(tokens):
        if tok.kind == "space":
            continue
        # No break at all before closing punctuation or after an opening bracket.
        if last is not None and "close" not in classes[i] and "open" not in classes[last]:
            costs[tok.start] = _pair_cost(classes[last], classes[i], language)
            if tokens[i - 1].kind != "space" and tok.kind == "word" == tokens[last].kind:
                costs[tok.start] = NEVER  # "GPT4o" split by the tokenizer: not a word gap
        last = i
    if language == "zh":
        _zh_penalties(tokens, base, costs)
    else:
        en_penalties(tokens, costs)
    pairs = _pairs(base, language)
    for pos in costs:
        if any(o < pos <= c for o, c in pairs):
            costs[pos] = max(costs[pos], NEVER)  # 《先看目录，再翻书》 on one line
    for pos in [p for p in costs if any(a < p < b for a, b in keep)]:
        del costs[pos]
    return Analysis(text, language, base, tuple(tokens), costs, tuple(classes), pairs, keep)


def _pairs(base: str, language: str) -> tuple[tuple[int, int], ...]:
    """Matched quotes and brackets narrow enough to show on one line."""
    out: list[tuple[int, int]] = []
    stack: list[int] = []
    for i, c in enumerate(base):
        if c in PAIRS:
            stack.append(i)
        elif stack and c == PAIRS[base[stack[-1]]]:
            o = stack.pop()
            if width(base[o : i + 1], language) <= PAIR_WIDTH.get(language, 42.0):
                out.append((o, i))
    return tuple(sorted(out))


def _zh_penalties(tokens: list[Token], base: str, costs: dict[int, float]) -> None:
    """Chinese breaks that look fine pair by pair but read badly in context."""
    _list_penalties(tokens, costs)
    # "失败 / 轨迹的 rollout": a break just before a 的 cuts a modifier short (unless it
    # falls where a phrase starts anyway: "过去三年里 / 最重要的").
    des = [t.start for t in tokens if t.text == "的"]
    for pos in costs:
        if costs[pos] > 4 and any(0 < d - pos <= 4 and "，" not in base[pos:d] for d in des):
            costs[pos] += 4.0
    # A word that merely looks like a particle or localizer at a line start (上下文,
    # 过去) reads as one at a glance.
    for tok in tokens:
        if tok.kind != "cjk" or len(tok.text) < 2:
            continue
        if tok.text[0] in LOOKS_CLOSING and costs.get(tok.start, NEVER) < NEVER:
            costs[tok.start] += LOOKALIKE
    # Two single characters either side: likely one word the dictionary lacks (前/向).
    for i in range(1, len(tokens)):
        left, right = tokens[i - 1], tokens[i]
        if (
            left.kind == right.kind == "cjk"
            and len(left.text) == len(right.text) == 1
            and right.tag not in ("d", "c", "r")
            and left.text not in PARTICLES
            and costs.get(right.start, NEVER) < NEVER
        ):
            costs[right.start] += SINGLE_PAIR
    # "通过与失败": a coordinator between two short words binds them into one phrase.
    for i in range(1, len(tokens) - 1):
        left, mid, right = tokens[i - 1], tokens[i], tokens[i + 1]
        if (
            mid.text in COORDINATORS
            and left.kind == right.kind == "cjk"
            and len(left.text) <= 2
            and mid.start in costs
        ):
            costs[mid.start] = max(costs[mid.start], 12.0)


def cost_at(an: Analysis, offset: int) -> float:
    """Cost of a break at ``offset`` (or at the next token start after spaces there)."""
    while offset < len(an.text) and an.text[offset].isspace():
        offset += 1
    return an.costs.get(offset, NEVER)

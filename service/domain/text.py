"""Pure text logic: tokens, widths, break costs, phrases, subtitle lines and zh-Hans display
punctuation.

A *span* is a half-open ``(start, end)`` range of character offsets into a segment's text.
Phrases partition the text into contiguous spans, so joining cue texts loses nothing.

Where a line or phrase may break is decided by a cost per break position, looked up in
``BREAK_COSTS`` (the rules an editor applies, as data): 0 after a sentence end, 1 after a
comma, cheap before a conjunction or preposition, prohibitive before a particle, a
localizer, a unit or closing punctuation, after a preposition or a numeral, and between a
modifier and its head. Dynamic programming then picks the cheapest phrases, cues and lines.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

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
ZH_TRAILING = "，。、；,;"

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
# (a dictionary segmenter, given by an adapter: service.adapters.segmenter.tagged_words).
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


# -- width and reading speed ----------------------------------------------------------------

_FULL_WIDTH_MARKS = set("—…“”‘’·")


@lru_cache(maxsize=4096)
def _char_width(c: str) -> float:
    if "A" <= c <= "Z":
        return 0.6
    if "a" <= c <= "z" or "0" <= c <= "9":
        return 0.5
    if c == " ":
        return 0.25
    if c in _FULL_WIDTH_MARKS or unicodedata.east_asian_width(c) in ("W", "F"):
        return 1.0
    if c.isspace():
        return 0.25
    return 0.5


def width(text: str, language: str = "zh") -> float:
    """Display width of a line: full-width units for Chinese (hanzi and full-width marks 1,
    A-Z 0.6, a-z and digits 0.5, space 0.25), characters for English."""
    text = text.strip()
    if language != "zh":
        return float(len(text))
    return sum(_char_width(c) for c in text)


def display_len(text: str, language: str | None = None) -> float:
    """Width of ``text`` as a subtitle line (the language detected when not given)."""
    return width(text, language or detect_language(text))


def reading_chars(text: str) -> float:
    """Characters a viewer reads, for the reading-speed limit: a hanzi 1, a Latin letter or
    digit 0.5, punctuation and spaces nothing."""
    total = 0.0
    for c in text:
        if _CJK_RE.match(c):
            total += 1
        elif c.isascii() and c.isalnum():
            total += 0.5
    return total


# -- zh-Hans display punctuation ------------------------------------------------------------

_TO_FULL = {",": "，", "?": "？", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）"}
_FULL_PUNCT = set("，。、；：？！…—「」『』（）《》〈〉【】“”‘’")


def _is_cjk(c: str | None) -> bool:
    return c is not None and bool(_CJK_RE.match(c))


def zh_punct(text: str) -> str:
    """Half-width ``,?!:;`` next to hanzi become full-width (``1,000``, ``10:30`` and a colon
    between Latin words stay). Same length as ``text``, so offsets are shared."""
    chars = list(text)
    n = len(text)
    for i, c in enumerate(text):
        if c not in _TO_FULL and c != ".":
            continue
        p = i - 1
        while p >= 0 and text[p] in " \t":
            p -= 1
        q = i + 1
        while q < n and text[q] in " \t":
            q += 1
        before = text[p] if p >= 0 else None
        after = text[q] if q < n else None
        if c == ".":
            if _is_cjk(before) and (after is None or _is_cjk(after) or after == "\n"):
                chars[i] = "。"
            continue
        if before is not None and after is not None and before.isdigit() and after.isdigit():
            continue
        if _is_cjk(before) or _is_cjk(after):
            chars[i] = _TO_FULL[c]
    return "".join(chars)


def render_line(raw: str, language: str, cue_end: bool = False, continues: bool = True) -> str:
    """A line as shown. Chinese: a comma or 。 inside the line becomes one space and is dropped
    at its end, 、 is dropped at a line end, no space next to full-width punctuation, and at
    a line end no trailing —— (nor … at a cue end while the text goes on).
    ``raw`` is already zh_punct'ed."""
    if language != "zh":
        return " ".join(raw.split())
    out: list[str] = []
    for tok in _TOKEN.finditer(raw):
        piece = tok.group()
        if (tok.lastgroup == "punct" and piece in "，,。") or tok.lastgroup == "space":
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(piece)
    s = "".join(out)
    s = re.sub(r" *([，。、；：？！…—「」『』（）《》〈〉【】“”]) *", _keep_space_after_closer, s)
    while True:
        # A line break is itself the pause a dash marks: no dash at a line end either.
        t = s.strip().rstrip("，,。、—")
        if cue_end and continues:
            t = t.rstrip("…")
        if t == s:
            return s
        s = t


def _keep_space_after_closer(m: re.Match[str]) -> str:
    return m.group(1)


# -- classes and break costs ----------------------------------------------------------------

PARTICLES = set("的了着过吗呢吧地得啊嘛么呀哦") | {"之一"}
LOCALIZERS = {
    "里", "上", "中", "下", "内", "外", "间", "前", "后", "旁", "边",
    "之间", "之中", "之内", "之外", "之上", "之下", "之前", "之后", "当中", "期间",
    "以上", "以下", "以内", "以外", "以来", "里面", "上面", "中间",
}  # fmt: skip
# Words that bind to what follows: a line never ends on one.
FORWARD = {
    "先", "再", "把", "让", "在", "对", "被", "将", "给", "从", "向", "往", "于", "由", "以",
    "为", "当", "按", "据", "跟", "比", "除", "自", "令", "使", "叫", "连", "就", "也", "都",
    "又", "还", "才", "最", "更", "很", "太", "不", "没", "未", "别", "只", "仅", "均", "各",
    "每", "该", "其", "所有", "这", "那", "这个", "那个", "这些", "那些", "这块", "这种",
    "那种", "一种", "关于", "要", "能", "会", "可以", "应该", "必须", "需要", "应", "可",
    "想", "得以", "能够", "将要", "正在", "已经", "曾经", "并不", "不会", "不能", "对于",
    "根据", "经过", "随着", "作为", "用", "靠",
}  # fmt: skip
CONJUNCTIONS = {
    "和", "与", "及", "或", "而", "但", "并", "且", "而是", "但是", "并且", "或者",
    "以及", "因为", "所以", "如果", "虽然", "然而", "同时", "不过", "而且", "因此",
}  # fmt: skip
UNITS = {
    "行", "张", "个", "本", "次", "件", "条", "位", "种", "项", "倍", "层", "步", "轮", "秒",
    "分", "分钟", "小时", "天", "年", "月", "日", "周", "块", "台", "篇", "页", "组", "套",
    "元", "万", "亿", "千", "百", "点", "度", "比特", "字节", "字", "句", "段", "款", "名",
    "人", "家", "卡", "毫秒", "百分点", "成", "折", "号", "版", "代", "例", "份", "遍", "批",
}  # fmt: skip
SUFFIXES = set("度员性集率化者量器型式级类师们界感端值法")
_CJK_DIGITS = set("零一二三四五六七八九十百千万亿两")
_LATIN_UNITS = {"ms", "s", "GB", "MB", "KB", "TB", "B", "K", "M", "T", "x", "%", "fps", "Hz"}

EN_ARTICLES = {
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her",
    "its", "our", "their", "some", "any", "each", "every", "no", "another", "such",
}  # fmt: skip
EN_QUANTIFIERS = {"all", "both", "each", "most", "many", "few", "some", "none", "several", "half",
                  "one", "two", "three", "any", "much", "more", "less", "part", "rest"}  # fmt: skip
EN_PREPOSITIONS = {"of", "in", "on", "at", "to", "for", "with", "from", "by", "about", "into",
                   "over", "after", "before", "under", "between", "through", "during", "without",
                   "within", "as", "than", "via", "per", "against", "across", "behind",
                   "toward", "towards", "onto", "upon", "like"}  # fmt: skip
EN_CONJUNCTIONS = {"and", "or", "but", "nor", "so", "yet", "because", "although", "though",
                   "while", "if", "when", "where", "which", "who", "whose", "whom", "unless",
                   "until", "since", "whereas", "whether"}  # fmt: skip
EN_AUX = {"is", "are", "was", "were", "be", "been", "being", "am", "will", "would", "can",
          "could", "should", "may", "might", "must", "do", "does", "did", "has", "have", "had",
          "not", "very", "more", "most", "less", "least"}  # fmt: skip
EN_UNITS = {"ms", "s", "seconds", "second", "minutes", "minute", "hours", "hour", "percent",
            "times", "tokens", "bits", "bytes", "GB", "MB", "KB", "TB", "x", "%", "days",
            "years", "points", "steps", "lines", "files", "tests", "people"}  # fmt: skip
_EN_ADJ_SUFFIXES = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ic", "al", "ary")

# (left class, right class, cost, why): the first row matching the atoms either side of a
# break prices it. "*" matches any atom.
BREAK_COSTS: dict[str, list[tuple[str, str, float, str]]] = {
    "zh": [
        ("*", "close", NEVER, "closing punctuation never opens a line"),
        ("open", "*", NEVER, "an opening bracket never ends a line"),
        ("stop", "*", 0, "after a sentence end"),
        ("comma", "*", 1, "after a comma, semicolon or colon"),
        ("dash", "*", 1.5, "after a dash"),
        ("list", "*", 2, "between list items"),
        ("*", "particle", NEVER, "never open a line with 的了着过吗呢吧"),
        ("*", "localizer", NEVER, "never open a line with a localizer (里 上 中 之间)"),
        ("*", "suffix", NEVER, "never split a suffix (度 员 性 集) from its word"),
        ("num", "unit", NEVER, "never between a number and its unit or measure word"),
        ("forward", "*", NEVER, "never after a preposition or forward-binding word"),
        ("conj", "*", NEVER, "never after a conjunction"),
        ("num", "conj", 2, "before a conjunction"),
        ("num", "verb", 6, "after a quantity, before a verb"),
        ("num", "*", NEVER, "never between a numeral(-classifier) and its noun"),
        ("latin", "noun", NEVER, "never between a Latin modifier and its Chinese head"),
        ("latin", "unit", NEVER, "never between a Latin modifier and its Chinese head"),
        ("latin", "latin", 12, "inside a Latin term"),
        ("de", "*", AVOID, "never between a 的-modifier and its head"),
        ("adj", "noun", AVOID, "never between an adjective and its noun"),
        ("unit", "noun", AVOID, "never between a measure word and its noun"),
        ("unit", "verb", 8, "after a quantity, before a verb"),
        ("pron", "noun", 12, "inside a noun phrase"),
        ("adv", "*", AVOID, "never between an adverb and what it modifies"),
        ("*", "conj", 2, "before a conjunction"),
        ("*", "open", 2, "before an opening quote or bracket"),
        ("*", "forward", 3, "before a preposition or forward-binding word"),
        ("localizer", "*", 2, "after a localizer: a place phrase ends"),
        ("particle", "*", 7, "after an aspect particle: between a verb and its object"),
        ("*", "adv", 4, "before an adverb"),
        ("noun", "verb", 4, "between subject and predicate"),
        ("pron", "verb", 5, "between subject and predicate"),
        ("time", "*", 4, "after a time word"),
        ("verb", "*", 7, "between a verb and its object"),
        ("noun", "noun", 10, "inside a compound"),
        ("char", "char", 10, "between characters (no tagger): maybe inside a word"),
        ("*", "*", 6, "elsewhere"),
    ],
    "en": [
        ("*", "close", NEVER, "closing punctuation never opens a line"),
        ("open", "*", NEVER, "an opening bracket never ends a line"),
        ("stop", "*", 0, "after a sentence end"),
        ("comma", "*", 1, "after a comma, semicolon or colon"),
        ("dash", "*", 1.5, "after a dash"),
        ("article", "*", NEVER, "never between an article or determiner and its noun"),
        ("num", "unit", NEVER, "never between a number and its unit"),
        ("forward", "*", NEVER, "never after a preposition"),
        ("conj", "*", AVOID, "never after a conjunction"),
        ("adj", "word", AVOID, "never between an adjective and its noun"),
        ("modifier", "noun", AVOID, "between a participle or comparative and its noun"),
        ("quant", "forward", AVOID, "never inside 'all of', 'some of'"),
        ("*", "of", 8, "before 'of': it binds to the noun before it"),
        ("*", "conj", 2, "before a conjunction"),
        ("*", "forward", 3, "before a preposition"),
        ("*", "article", 4, "before an article: a noun phrase starts"),
        ("aux", "*", 8, "inside a verb group"),
        ("noun", "noun", 8, "between two content words: maybe a compound"),
        ("*", "*", 6, "elsewhere"),
    ],
}

_NOUN_TAGS = ("n", "vn", "j", "l", "an", "s", "nz", "ng", "nr", "ns", "nt", "nrt", "nrfg")


# jieba's tags that are wrong on tech text: 通过 is "pass" far more often than "by means of".
TAG_FIXES = {"通过": "v", "显卡": "n", "显存": "n", "缓存": "n", "算力": "n", "比特": "q"}
COORDINATORS = set("与和及或跟")


def _zh_classes(tok: Token, prev: Token | None) -> frozenset[str]:
    w = tok.text
    tag = TAG_FIXES.get(w, tok.tag)
    out: set[str] = set()
    if tok.kind == "punct":
        if w in OPENERS:
            out.add("open")
        else:
            out.add("close")
            if w in SENTENCE_END:
                out.add("stop")
            elif w == "、":
                out.add("list")
            elif w in "—-":
                out.add("dash")
            elif w in CLAUSE_END:
                out.add("comma")
        return frozenset(out)
    if tok.kind == "word":
        if w[0].isdigit():
            out.add("num")
        elif w in _LATIN_UNITS and prev is not None and prev.tag == "m":
            out.add("unit")
        else:
            out.add("latin")
        return frozenset(out)
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
        if w in SENTENCE_END or w == ".":
            return frozenset({"close", "stop"})
        if w in "—-":
            return frozenset({"close", "dash"})
        return frozenset({"close", "comma"} if w in CLAUSE_END else {"close"})
    low = w.lower()
    out = {"word"}
    if w[0].isdigit():
        out.add("num")
    if low in EN_UNITS or w in EN_UNITS:
        out.add("unit")
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
    elif len(low) > 4 and low.endswith(_EN_ADJ_SUFFIXES):
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
def analyse(text: str, language: str, segment: Segmenter | None = None) -> Analysis:
    base = zh_punct(text) if language == "zh" else text
    tokens = tokenize(base, segment)
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
    an_base = base
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
        _list_penalties(tokens, costs)
        # "失败 / 轨迹的 rollout": a break just before a 的 cuts a modifier short (unless it
        # falls where a phrase starts anyway: "过去三年里 / 最重要的").
        des = [t.start for t in tokens if t.text == "的"]
        for pos in costs:
            if costs[pos] > 4 and any(0 < d - pos <= 4 and "，" not in an_base[pos:d] for d in des):
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
    return Analysis(text, language, base, tuple(tokens), costs, tuple(classes))


def cost_at(an: Analysis, offset: int) -> float:
    """Cost of a break at ``offset`` (or at the next token start after spaces there)."""
    while offset < len(an.text) and an.text[offset].isspace():
        offset += 1
    return an.costs.get(offset, NEVER)


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
        if 0 < end < len(text):
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
    text: str, limit: int, segment: Segmenter | None = None, *, language: str | None = None
) -> list[tuple[int, int]]:
    """Partition ``text`` into phrases: clause pieces that fit one subtitle line (``limit``
    in the language's width units) each, cut where the break costs least. Phrases are the
    timing grain of the subtitles and espeak's synthesis units."""
    if not text:
        return [(0, 0)]
    lang = language or detect_language(text)
    an = analyse(text, lang, segment)
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


# -- lines ----------------------------------------------------------------------------------

MISSED_PUNCT = 8.0  # a two-line cue that breaks elsewhere than at its clause punctuation
TOP_HEAVY = 0.4  # per width unit the top line is longer than the bottom one
BOTTOM_HEAVY = 0.3  # per unit the bottom line is longer: balanced, slightly bottom-heavy


def _balance(top: float, bottom: float) -> float:
    return (top - bottom) * TOP_HEAVY if top > bottom else (bottom - top) * BOTTOM_HEAVY


def _inner_punct(an: Analysis, p: int, q: int) -> int:
    """Clause punctuation marks inside text[p:q] (not at its end; 、 of a list aside)."""
    marks = [
        t
        for t in an.tokens
        if p <= t.start < q and t.kind == "punct" and an.base[t.start] in CLAUSE_END
    ]
    while marks and not re.search(r"\w", an.text[marks[-1].end : q]):
        marks.pop()  # the run of punctuation that ends the line
    kept = [t for t in marks if an.base[t.start] not in "、."]
    return len(kept) - sum(1 for t in kept if an.base[t.start] == "—") // 2


def layout_lines(
    an: Analysis, a: int, b: int, limit: float, max_lines: int, continues: bool = True
) -> tuple[float, list[str]] | None:
    """The cheapest way to show text[a:b] as at most ``max_lines`` display lines of at most
    ``limit`` width: one line if it fits, else the break costs plus a balance term. A single
    unbreakable atom may overflow a line of its own. None when it cannot fit."""
    lang = an.language
    missed_cost = MISSED_PUNCT if lang == "zh" else 1.0
    cands = sorted(p for p in an.costs if a < p < b and an.text[a:p].strip())
    memo: dict[tuple[int, int], tuple[float, list[str]] | None] = {}

    def line(p: int, q: int) -> tuple[str, bool]:
        shown = render_line(an.base[p:q], lang, cue_end=q == b, continues=continues)
        single = not any(p < c < q for c in cands)
        return shown, single or width(shown, lang) <= limit

    def go(p: int, k: int) -> tuple[float, list[str]] | None:
        key = (p, k)
        if key in memo:
            return memo[key]
        shown, ok = line(p, b)
        result: tuple[float, list[str]] | None = None
        if ok:
            missed = 0.0 if p == a else missed_cost * _inner_punct(an, p, b)
            result = (missed, [shown] if shown else [])
        elif k > 1:
            for c in cands:
                if c <= p:
                    continue
                head, fits = line(p, c)
                if not fits:
                    break
                rest = go(c, k - 1)
                if rest is None or not head or not rest[1]:
                    continue
                cost = an.costs[c] + rest[0] + _balance(width(head, lang), width(rest[1][0], lang))
                cost += missed_cost * _inner_punct(an, p, c)
                if result is None or cost < result[0]:
                    result = (cost, [head, *rest[1]])
        memo[key] = result
        return result

    return go(a, max_lines)


def forced_lines(
    an: Analysis, a: int, b: int, limit: float, max_lines: int, continues: bool = True
) -> tuple[float, list[str]]:
    """layout_lines for text that does not fit: the least overflow (the limit relaxed step by
    step), at a price that keeps it a last resort."""
    for step in range(1, 40):
        got = layout_lines(an, a, b, limit * (1 + step / 8), max_lines, continues)
        if got is not None:
            return got[0] + NEVER * step, got[1]
    shown = render_line(an.base[a:b], an.language, cue_end=True, continues=continues)
    return NEVER * 40, [shown]


def wrap(
    text: str,
    limit: float,
    max_lines: int = 2,
    segment: Segmenter | None = None,
    language: str | None = None,
) -> list[str] | None:
    """Break ``text`` into at most ``max_lines`` display lines of at most ``limit`` width at
    the cheapest breaks. None when it cannot fit, except that a single word longer than the
    limit is allowed a line of its own."""
    lang = language or detect_language(text)
    an = analyse(text, lang, segment)
    got = layout_lines(an, 0, len(text), limit, max_lines, continues=False)
    return got[1] if got and got[1] else None


def single_word(text: str, segment: Segmenter | None = None) -> bool:
    """One word with at most punctuation around it: it may exceed a line, as it cannot break."""
    return len([t for t in tokenize(text, segment) if t.kind in ("word", "cjk")]) == 1


def strip_trailing(text: str, language: str) -> str:
    text = text.strip()
    if language == "zh":
        text = text.rstrip(ZH_TRAILING + " \t\n\u3000")
    return text


def comparable(text: str) -> str:
    """Text without punctuation and spaces: what must survive subtitle layout unchanged."""
    return "".join(t.text for t in tokenize(text) if t.kind in ("cjk", "word"))

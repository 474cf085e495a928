"""The word classes line breaking reads (particles, localizers, units, English function
words) and BREAK_COSTS: the rules an editor applies, as data."""

from __future__ import annotations

from service.domain.speech.en_tables import UNITS as _SPEECH_UNITS
from service.domain.text.tokens import AVOID, NEVER

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
            "years", "points", "steps", "lines", "files", "tests", "people", "thousand",
            "million", "billion", "trillion", "requests", "queries", "users", "parameters",
            "params", "GPUs", "dollars", "cents", "euros", "degrees", "weeks", "months",
            "epochs", "samples", "images", "words", "pages", "rows", "calls", "runs",
            *_SPEECH_UNITS}  # fmt: skip
# Adjectives a word list can tell (no break between one and its noun).
EN_ADJECTIVES = {"new", "old", "big", "small", "large", "long", "short", "high", "low", "good",
                 "bad", "best", "worst", "first", "last", "next", "same", "other", "own", "main",
                 "key", "full", "open", "real", "true", "false", "total", "whole", "single",
                 "double", "early", "late", "fast", "slow", "cheap", "hard", "easy", "free",
                 "major", "minor", "local", "global", "public", "private", "raw", "top",
                 "final", "recent", "current", "average", "median", "typical", "special",
                 "common", "simple", "certain", "clear", "entire", "exact", "extra", "huge",
                 "tiny", "wide", "deep", "dense", "sparse", "neural", "linear", "previous",
                 "original", "initial", "careful", "better", "worse", "bigger", "smaller",
                 "larger", "longer", "shorter", "higher", "lower", "faster", "slower",
                 "cheaper", "cloud"}  # fmt: skip
_EN_ADJ_SUFFIXES = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ic", "al", "ary")

# (left class, right class, cost, why): the first row matching the atoms either side of a
# break prices it. "*" matches any atom.
BREAK_COSTS: dict[str, list[tuple[str, str, float, str]]] = {
    "zh": [
        ("*", "close", NEVER, "closing punctuation never opens a line"),
        ("open", "*", NEVER, "an opening bracket never ends a line"),
        ("prefix", "*", NEVER, "never inside an amount or a bound: $ 41.5B, ~ 40%"),
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
        ("prefix", "*", NEVER, "never inside an amount or a bound: $ 41.5B, ~ 40%, < 5 ms"),
        ("num", "unit", NEVER, "never between a number and its unit or per-unit"),
        ("num", "counted", AVOID, "never between a number and the things it counts"),
        ("ordinal", "*", AVOID, "never between an ordinal and its noun"),
        ("forward", "*", NEVER, "never after a preposition"),
        ("conj", "*", AVOID, "never after a conjunction"),
        ("adj", "noun", AVOID, "never between an adjective and its noun"),
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

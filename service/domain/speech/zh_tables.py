"""The Mandarin front-end's tables: the tokens of a display text, the symbols said as words,
the punctuation that pauses, and the measure words numbers read differently before."""

from __future__ import annotations

import re

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
MAG = "KkMBT"
TOKENS = re.compile(
    rf"(?P<space>\s+)"
    rf"|(?P<date>(?<![\d.])\d{{4}}(?P<sep>[-/.])\d{{1,2}}(?P=sep)\d{{1,2}}(?!\d|\.\d))"
    rf"|(?P<clock>(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:]))"
    rf"|(?P<fraction>(?<![\d./])\d+/\d+(?![\d./]))"
    rf"|(?P<sci>(?<![\w.])\d+(?:\.\d+)?[eE][-+−]?\d+(?![\w]))"
    rf"|(?P<arch>(?<![A-Za-z])[xX](?:86|64)(?![\d]))"
    rf"|(?P<times>{NUM}[x×](?![A-Za-z]))"
    rf"|(?P<version>(?<![A-Za-z0-9])[vV]\d+(?:\.(?:\d+|[xX*](?![A-Za-z0-9])))*(?![\d]))"
    # A model name's hyphens (Qwen-2.5-72B) join its parts: a number after "name-" starts
    # no range; the hyphen after it is a joiner.
    rf"|(?P<prange>(?<![A-Za-z]-){NUM}%?\s*[-~～–]\s*{NUM}%)"
    rf"|(?P<range>(?<![A-Za-z]-){NUM}[{MAG}]?\s*[~～–-]\s*{NUM}[{MAG}]?(?![A-Za-z\d]))"
    rf"|(?P<percent>{NUM}%)"
    rf"|(?P<mag>{NUM}[{MAG}](?![A-Za-z]))"
    rf"|(?P<num>{NUM})"
    rf"|(?P<latin>[A-Za-z]+(?:['’][A-Za-z]+)*(?:-[A-Za-z]+)*)"
    rf"|(?P<joiner>(?<=[A-Za-z])-(?=\d)|(?<=[A-Za-z\d])-(?=[A-Za-z\d]))"
    rf"|(?P<minus>(?<![\w.])-(?=\d))"
    rf"|(?P<cjk>[{CJK}]+)"
    rf"|(?P<dash>——|—|--|–)"
    rf"|(?P<ellipsis>……|…|\.\.\.)"
    rf"|(?P<other>.)",
    re.S,
)
# Symbols with a meaning of their own, and how they are said.
SYMBOLS = {
    "≠": "不等于",
    ">": "大于",
    "<": "小于",
    "≥": "大于等于",
    "≤": "小于等于",
    "≈": "约等于",
    "=": "等于",
    "+": "加",
    "×": "乘",
    "÷": "除以",
    "±": "正负",
    "~": "约",
    "～": "约",
    "/": "或",
    "→": "到",
    "%": "百分号",
    "‰": "千分号",
    "°": "度",
    "&": "和",
    "@": "at",
    "#": "号",
    "§": "节",
    "✓": "对",
    "✗": "错",
}
# Punctuation and the pause it stands for in pinyin text.
CLAUSE = set("，、；：,;:·・•")
STOPS = {"。": ".", "！": "!", "？": "?", ".": ".", "!": "!", "?": "?"}
FULLWIDTH = dict(zip(",;:?!.()", "，；：？！。（）", strict=True))
# Measure words after a number: 2 is 两 before them, and 行 is háng after a number.
MEASURE = (*"个张条种位项次件天周台块只层倍轮组头步行页份名篇部类款", "比特", "字节")
AFTER_NUMBER = {"行": "hang2"}
# 调 is tiáo (adjust) before these, as in 调到 50%, 调高, 调大, 调小, 调低; diào (transfer) after
# 被 (他被调到北京).
TIAO_BEFORE = set("到高低大小")


def is_cjk(ch: str) -> bool:
    return bool(ch) and bool(re.match(f"[{CJK}]", ch))

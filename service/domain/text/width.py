"""Display width, reading speed and zh-Hans display punctuation of subtitle text."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from service.domain.text.tokens import _CJK_RE, _TOKEN, detect_language

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
    """A line as shown. Chinese (subtitle practice): ，。； inside the line become one space,
    ：、 stay; a line never ends in ，。、；： (dropped there; ？！ and closing quotes and
    brackets stay), no space next to full-width punctuation, and at a line end no trailing
    —— (nor … at a cue end while the text goes on).
    ``raw`` is already zh_punct'ed."""
    if language != "zh":
        return " ".join(raw.split())
    out: list[str] = []
    for tok in _TOKEN.finditer(raw):
        piece = tok.group()
        if (tok.lastgroup == "punct" and piece in "，,。；") or tok.lastgroup == "space":
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(piece)
    s = "".join(out)
    s = re.sub(r" *([，。、；：？！…—「」『』（）《》〈〉【】“”]) *", _keep_space_after_closer, s)
    while True:
        # A line break is itself the pause a dash marks: no dash at a line end either.
        t = s.strip().rstrip("，,。、；：—")
        if cue_end and continues:
            t = t.rstrip("…")
        if t == s:
            return s
        s = t


def _keep_space_after_closer(m: re.Match[str]) -> str:
    return m.group(1)

"""Pronunciation lexicon: word -> pinyin (tone marks or numbers) or a respelling.

Entries match whole words of the segmenter (or runs of whole words), never a character inside
a longer word: ``行`` fixes the 行 of "50 行" but leaves 银行 alone. A job's entries override
the shipped ones (voices/lexicon/zh.tsv)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from service.domain.errors import InputError
from service.domain.speech.pinyin import PinyinError, looks_like_pinyin, parse_pinyin

MAX_ENTRIES = 500  # per job
MAX_WORD = 32  # characters
MAX_VALUE = 200
_CJK = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$")
_BAD = re.compile(r"[\x00-\x1f\x7f<>&=;；＝\t\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class LexiconError(InputError):
    """A pronunciation entry that cannot be used; the caller adds where it is."""


@dataclass(frozen=True, slots=True)
class Entry:
    word: str
    value: str  # as written
    syllables: tuple[str, ...] | None  # tone-number pinyin when the value is pinyin
    respelling: str | None  # else the text to speak instead

    def respelled(self) -> str:
        return self.respelling if self.respelling is not None else self.value


Lexicon = dict[str, Entry]


def parse_entry(word: str, value: str) -> Entry:
    """Check one entry; LexiconError says what is wrong with it (the caller names where)."""
    word = unicodedata.normalize("NFC", word).strip()
    value = unicodedata.normalize("NFC", value).strip()
    if not word:
        raise LexiconError("has an empty word")
    if not value:
        raise LexiconError(f"{word!r} has an empty pronunciation")
    if len(word) > MAX_WORD:
        raise LexiconError(
            f"{word[:20]!r}… is {len(word)} characters, over the limit of {MAX_WORD}"
        )
    if len(value) > MAX_VALUE:
        raise LexiconError(f"{word!r}: the pronunciation is over {MAX_VALUE} characters")
    for text in (word, value):
        if bad := _BAD.search(text):
            raise LexiconError(f"{word!r}: contains {bad.group()!r}, which is not allowed")
    if not looks_like_pinyin(value):
        return Entry(word, value, None, value)
    try:
        syllables = parse_pinyin(value)
    except PinyinError as exc:
        raise LexiconError(f"{word!r}: {exc}") from None
    if _CJK.match(word) and len(syllables) != len(word):
        raise LexiconError(
            f"{word!r} has {len(word)} characters but {value!r} has {len(syllables)} syllables"
        )
    return Entry(word, value, syllables, None)


def parse_entries(items: dict[str, str]) -> Lexicon:
    if len(items) > MAX_ENTRIES:
        raise LexiconError(f"has {len(items)} entries, over the limit of {MAX_ENTRIES}")
    out: Lexicon = {}
    for word, value in items.items():
        entry = parse_entry(word, value)
        out[entry.word] = entry
    return out


def parse_line(text: str) -> dict[str, str]:
    """The Markdown form ``行=háng; 当=dàng; GRPO=G R P O`` as word -> value pairs."""
    items: dict[str, str] = {}
    for part in re.split(r"[;；]", text):
        if not part.strip():
            continue
        m = re.match(r"^(.*?)\s*[=＝]\s*(.*)$", part.strip(), re.S)
        if not m:
            raise LexiconError(f"{part.strip()!r} is not word=pronunciation")
        word, value = m.group(1), m.group(2)
        items[word.strip()] = value.strip()
    return items


def to_line(items: dict[str, str]) -> str:
    return "; ".join(f"{w}={v}" for w, v in items.items())


def parse_tsv(text: str) -> Lexicon:
    """The shipped lexicon: ``word<TAB>pronunciation`` per line, ``#`` comments."""
    out: Lexicon = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        word, _, value = line.partition("\t")
        try:
            entry = parse_entry(word, value)
        except LexiconError as exc:
            raise LexiconError(f"line {lineno}: {exc}") from None
        out[entry.word] = entry
    return out

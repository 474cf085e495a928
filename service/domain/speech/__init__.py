"""The speech front-end: a segment's display text -> the text each kind of engine speaks, with a
map from every spoken span back to its source span (subtitles always show the script's text)."""

from __future__ import annotations

import re

from service.domain.speech.lexicon import Entry, Lexicon, LexiconError, parse_entries
from service.domain.speech.spoken import Builder, Piece, SpokenText
from service.domain.speech.zh import Tools, speak_zh

# What an engine wants: "pinyin" (espeak-ng cmn-latn-pinyin: everything explicit) or "text"
# (neural voices that read numbers and mixed text themselves: only the lexicon is applied).
READERS = ("pinyin", "text")


def speak_en(text: str, lexicon: Lexicon) -> SpokenText:
    """English: engines read English text well; apply the lexicon to whole words only."""
    out = Builder(text)
    pos = 0
    for m in re.finditer(r"[A-Za-z][A-Za-z'’\-]*", text):
        entry = lexicon.get(m.group()) or lexicon.get(m.group().lower())
        if entry is None or entry.syllables is not None:
            continue
        if m.start() > pos:
            out.add(pos, m.start(), text[pos : m.start()], "same", False)
        out.add(m.start(), m.end(), entry.respelled(), "en", True)
        pos = m.end()
    if pos < len(text):
        out.add(pos, len(text), text[pos:], "same", False)
    return out.build()


def front_end(text: str, language: str, reader: str, lexicon: Lexicon, tools: Tools) -> SpokenText:
    """What an engine of kind ``reader`` is given for ``text`` in ``language``."""
    if language == "zh":
        return speak_zh(text, reader, lexicon, tools)
    return speak_en(text, lexicon)


__all__ = [
    "READERS",
    "Entry",
    "Lexicon",
    "LexiconError",
    "Piece",
    "SpokenText",
    "Tools",
    "front_end",
    "parse_entries",
    "speak_en",
    "speak_zh",
]

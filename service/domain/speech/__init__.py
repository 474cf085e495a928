"""The speech front-end: a segment's display text -> the text each kind of engine speaks, with a
map from every spoken span back to its source span (subtitles always show the script's text)."""

from __future__ import annotations

from service.domain.speech.en import speak_en
from service.domain.speech.lexicon import Entry, Lexicon, LexiconError, parse_entries
from service.domain.speech.spoken import Piece, SpokenText
from service.domain.speech.zh import Tools, speak_zh

# What an engine wants: "pinyin" (the offline engines, espeak-ng and the neural voice:
# everything explicit; tone-number pinyin for Mandarin, numbers and symbols in words for
# English) or "text" (edge's neural voices read numbers and mixed text themselves: only the
# lexicon is applied).
READERS = ("pinyin", "text")


def front_end(text: str, language: str, reader: str, lexicon: Lexicon, tools: Tools) -> SpokenText:
    """What an engine of kind ``reader`` is given for ``text`` in ``language``."""
    if language == "zh":
        return speak_zh(text, reader, lexicon, tools)
    return speak_en(text, reader, lexicon)


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

"""The speech front-end: a segment's display text -> the text each kind of engine speaks, with a
map from every spoken span back to its source span (subtitles always show the script's text)."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection

from service.domain.errors import InputError
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


def check_speakable(texts: list[str], recorded: Collection[int] = ()) -> None:
    """A segment with no letter, digit or hanzi (emoji, symbols only) has nothing any engine
    can say: refused at the door, naming it, rather than failing (or staying silent) in the
    engine. ``recorded``: segments spoken by a take, not by an engine."""
    for i, text in enumerate(texts):
        if i not in recorded and not any(unicodedata.category(c)[0] in "LN" for c in text):
            raise InputError(
                f"segment {i + 1} has nothing to say ({text.strip()[:40]!r}): give it words, "
                "or a recorded take",
                loc=("segments", i, "text"),
            )


__all__ = [
    "READERS",
    "Entry",
    "Lexicon",
    "LexiconError",
    "Piece",
    "SpokenText",
    "Tools",
    "check_speakable",
    "front_end",
    "parse_entries",
    "speak_en",
    "speak_zh",
]

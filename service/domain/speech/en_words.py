"""Latin words as the offline engines should be given them: the lexicon's respellings, and
acronyms spelled as letters or said as words (``en_tables.SAID``)."""

from __future__ import annotations

import re

from service.domain.speech.en_tables import SAID, spell
from service.domain.speech.lexicon import Lexicon
from service.domain.speech.spoken import Builder, SpokenText


def letters(word: str) -> str:
    """A spelled acronym as espeak-ng says letters: ``G P U``; a lone A is said "eh" (en-us
    reads a single A as the article)."""
    return " ".join("eh" if c in "Aa" else c for c in word if c.isalpha())


def say_word(word: str, lexicon: Lexicon) -> str:
    """One Latin word: the lexicon's respelling, an acronym said or spelled, else itself."""
    entry = lexicon.get(word) or lexicon.get(word.lower())
    if entry is not None and entry.syllables is None:
        return entry.respelled()
    if word in SAID:
        return SAID[word]
    if len(word) == 1:
        return word  # a, I, x: espeak-ng says these right alone
    base = word[:-1] if re.fullmatch(r"[A-Z]{2,5}s", word) else word
    if base != word and spell(base):
        return letters(base) + "'s"  # GPUs: G P U's
    return letters(word) if spell(word) else word


URL_MARKS = {".": "dot", "/": "slash", "-": "dash", "_": "underscore", "~": "tilde", ":": ""}


def url_words(address: str, lexicon: Lexicon) -> str:
    """A web address or path as a narrator reads it: ``example.org/docs`` example dot org
    slash docs (the scheme is not said); numbers in it digit by digit past two digits."""
    from service.domain.speech import en_numbers as n

    body = re.sub(r"^https?://", "", address)
    words: list[str] = []
    for part in re.findall(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]", body):
        if part[0].isdigit():
            words.append(n.digit_by_digit(part) if len(part) > 2 else n.cardinal(part))
        elif part[0].isalpha():
            words.append(say_word(part, lexicon))
        elif URL_MARKS.get(part, part):
            words.append(URL_MARKS.get(part, part))
    return " ".join(words)


def lexicon_only(text: str, lexicon: Lexicon) -> SpokenText:
    """For engines that read English well themselves: the lexicon on whole words only."""
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

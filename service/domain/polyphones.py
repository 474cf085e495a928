"""The speech check's 多音字 test (pure): where the script has a character of several readings,
which reading the audio says, decided by the recogniser's forced scores rather than its
transcript.

Whisper writes the glyph that fits the context, so 银行 read yín xíng is transcribed 银行 and
compares equal as text. Forced transcripts ask the acoustics instead: the transcript with the
character replaced by a character that has only the intended reading (银航), and by one that
has only another reading (银形); neither is a word, so the language model favours neither, and
the one that scores clearly higher says which syllable was spoken.

Comparison is toneless (as the rest of the check): readings that differ only in tone are one
reading here (a tone the recogniser does not write is no mismatch worth a warning)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.domain.speech import SpokenText
from service.domain.speech.pinyin import is_syllable
from service.domain.speech_compare import Difference, align, units_of

# How much more (natural log, over the whole forced transcript) another reading must score
# than the intended one for the segment to be flagged. On the labelled set (bench/
# speech_check.py, zh-baker and kokoro zf_xiaoyi, 2026-12) the intended reading of a correct
# segment led by 6.9-14.2, and a wrong reading led by 2.1 (权重 read chóng) to 27.1; a near
# tie is no mismatch worth a warning.
MARGIN = 1.0
MOST = 4  # polyphones tested a segment (each costs a forced pass per candidate): the first
# The 多音字 tested, with the readings that matter. Not every character pypinyin lists with
# several readings: a rare reading's single-reading homophone is often a rare glyph (他 tuó,
# 大 dài, 可 gē), which the recogniser's language model scores apart from the common one
# whatever the audio says: on the labelled set correct readings of 他/大/不/可 scored up to
# 17 nats under such a homophone. These are the ones a front-end gets wrong in real text
# (voices/lexicon/zh.tsv) whose readings each have a common single-reading homophone (当 dāng,
# 差 chā, 乐 lè ... have only rare ones: 珰, 锸, 鳓).
READINGS: dict[str, tuple[str, ...]] = {
    "行": ("xing2", "hang2"),
    "长": ("chang2", "zhang3"),
    "重": ("zhong4", "chong2"),
    "调": ("diao4", "tiao2"),
    "还": ("hai2", "huan2"),
    "降": ("jiang4", "xiang2"),
    "率": ("lv4", "shuai4"),
    "朝": ("chao2", "zhao1"),
    "觉": ("jue2", "jiao4"),
    "量": ("liang4", "liang2"),
    "数": ("shu4", "shu3"),
}


@dataclass(frozen=True, slots=True)
class Polyphone:
    """A character of the script the front-end read one way of several: ``at`` its index in
    the script's text, ``meant`` the tone-number syllable chosen, ``others`` its other
    readings (toneless-distinct from ``meant`` and each other)."""

    at: int
    char: str
    meant: str
    others: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReadChar:
    """A hanzi of the script (``at``) and the syllable the reading gives it (at ``spot`` in
    the spoken text)."""

    at: int
    char: str
    syllable: str
    spot: int


def read_chars(spoken: SpokenText) -> list[ReadChar]:
    """Each hanzi the reading gives one syllable of its own (a piece whose characters and
    syllables are as many)."""
    out = []
    for p in spoken.pieces:
        if p.kind != "zh":
            continue
        sylls = list(re.finditer(r"\S+", spoken.text[p.spk_start : p.spk_end]))
        chars = spoken.source[p.src_start : p.src_end]
        if len(sylls) != len(chars) or not all(is_syllable(m.group()) for m in sylls):
            continue
        for k, (c, m) in enumerate(zip(chars, sylls, strict=True)):
            out.append(ReadChar(p.src_start + k, c, m.group(), p.spk_start + m.start()))
    return out


def polyphones(
    spoken: SpokenText,
    readings: Callable[[str], Sequence[str]] = lambda c: READINGS.get(c, ()),
    most: int = MOST,
) -> list[Polyphone]:
    """The script's characters that have another toneless reading than the one chosen (the
    first ``most``); ``readings``: a character's tone-number syllables (READINGS')."""
    out: list[Polyphone] = []
    for r in read_chars(spoken):
        seen, others = {r.syllable[:-1]}, []
        for syl in readings(r.char):
            if syl[:-1] not in seen:
                seen.add(syl[:-1])
                others.append(syl)
        if others:
            out.append(Polyphone(r.at, r.char, r.syllable, tuple(others)))
    return out[:most]


def heard_at(intended: SpokenText, heard: SpokenText, at: int) -> tuple[int, str] | None:
    """Where the transcript says the script's character at ``at``: (index in the transcript,
    toneless syllable heard there), when the alignment pairs it with one character (None: the
    character was heard as nothing, or as part of a rewritten piece). A lexicon entry's piece
    (一行) gives one unit per character, so its k-th unit is its k-th character."""
    ref, hyp = units_of(intended), units_of(heard)
    mine = [k for k, u in enumerate(ref) if u.start <= at < u.end]
    if not mine or len(mine) != ref[mine[0]].end - ref[mine[0]].start:
        return None
    want = mine[at - ref[mine[0]].start]
    for _op, i, j in align([u.key for u in ref], [u.key for u in hyp]):
        if i == want and j >= 0 and hyp[j].end == hyp[j].start + 1:
            return hyp[j].start, hyp[j].key
        if i == want:
            return None
    return None


def forced_texts(
    transcript: str, spot: int, p: Polyphone, homophone: Callable[[str], str | None]
) -> list[tuple[str, str]] | None:
    """(reading, transcript with the character at ``spot`` replaced by a character read only
    so) for the intended reading first, then each other reading that has such a character.
    None when the intended reading or every other one has none."""
    own = homophone(p.meant)
    found = [(s, h) for s in p.others if (h := homophone(s)) is not None]
    if own is None or not found:
        return None
    head, tail = transcript[:spot], transcript[spot + 1 :]
    return [(p.meant, head + own + tail), *((s, head + h + tail) for s, h in found)]


def misread(p: Polyphone, readings: list[str], scores: list[float]) -> Difference | None:
    """The difference to report when another reading outscores the intended one (scores[0])
    by MARGIN: the character, as said, and heard read the other way."""
    best = max(range(1, len(scores)), key=scores.__getitem__)
    if scores[best] - scores[0] < MARGIN:
        return None
    return Difference(
        kind="changed", said=f"{p.char} ({p.meant})", heard=f"{p.char} ({readings[best]})"
    )

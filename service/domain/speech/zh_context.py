"""Readings that depend on the words around (pure): the tone changes of 一 and 不 across a
run of Chinese words, the particle 得, and 调 before 到/高/低/大/小.

pypinyin applies them inside one word only, and there it misses most of 一's: its rule turns a
dictionary ``yi4`` into ``yi2`` before a fourth tone, but the phrase dictionary mostly says
``yi1`` (一段, 一步, 同一个 stay yi1 duan4, yi1 bu4, yi1 ge4). Across words it does nothing:
每一 + 段 is read mei3 yi1 duan4, where Mandarin says měi yí duàn. The rules, as spoken:
一 before a fourth (or neutral) tone is yí, before the other tones yì; it stays yī at the end,
as a digit (一点零二, 十一, 一一), an ordinal (第一) and at the end of a word that is not a
demonstrative (统一, 唯一, 之一, 万一); between a repeated verb (看一看) it is neutral. 不 is bú
before a fourth tone, bù elsewhere, neutral between a repeated word (是不是). 3-3 sandhi inside
a word is pypinyin's (and Kokoro, trained on readings without it, does it too).

调 before 到/高/低/大/小 is tiáo (adjust: 音量调到 3, 调高), which the dictionary reads diào when
the two are separate words; after 被 it is diào (他被调到北京).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.speech.zh_tables import TIAO_BEFORE

DIGITS = frozenset("零〇一二三四五六七八九十两点")  # 一 beside these is the digit yī
# Words ending in 一 whose 一 counts the next word (每一段, 这一步, 同一个): sandhi applies.
COUNTING = frozenset({"每一", "这一", "那一", "哪一", "同一", "任一"})
# After a verb, 得 joins a degree adverb as the complement particle (说得很直白): neutral.
DEGREE = ("很", "非常", "太", "更", "越", "真", "十分", "特别", "相当", "比较", "挺", "好")


BASES = {"一": ("yi",), "不": ("bu",), "得": ("de",), "调": ("diao", "tiao")}


@dataclass(frozen=True, slots=True)
class Word:
    """A word of a run: its hanzi, its syllables (one per hanzi), and whether they are fixed
    (a lexicon entry's or a job's pronunciation: never changed)."""

    text: str
    syllables: tuple[str, ...]
    fixed: bool = False


def _tone(syl: str | None) -> str:
    return syl[-1] if syl else ""


def _yi(around: str, nxt_syl: str | None, word: str, at_end: bool) -> str | None:
    """一's syllable (None: leave the dictionary's). ``around``: the hanzi before it, itself
    and the two after ("" where the run ends)."""
    prev, nxt, after = around[0], around[2], around[3]
    decimal = nxt == "点" and after in DIGITS  # 一点零二, but 有一点 is yì diǎn
    if nxt_syl is None or prev == "第" or prev in DIGITS or decimal or (nxt in DIGITS - {"点"}):
        return "yi1"
    if prev == nxt:
        return "yi5"
    if at_end and len(word) > 1 and word not in COUNTING:
        return None
    return "yi2" if _tone(nxt_syl) in "45" else "yi4"


def _bu(around: str, nxt_syl: str | None) -> str:
    if nxt_syl is None:
        return "bu4"
    if around[0] == around[2]:
        return "bu5"
    return "bu2" if _tone(nxt_syl) == "4" else "bu4"


def apply(words: list[Word]) -> list[tuple[str, ...]]:
    """The syllables of each word of a run, with the tone changes made."""
    chars = [(c, s, w, k == len(w.text) - 1) for w in words for k, (c, s) in
             enumerate(zip(w.text, w.syllables, strict=False))]  # fmt: skip
    out = [s for _, s, _, _ in chars]
    # Sentinels where the run ends: never hanzi, never equal to each other.
    padded = "\0" + "".join(c for c, _, _, _ in chars) + "\1\2"
    for i, (c, syl, w, at_end) in enumerate(chars):
        if w.fixed or syl[:-1] not in BASES.get(c, ()):
            continue  # fixed by a lexicon, or not this reading (a test's tools give hanzi)
        around = padded[i : i + 4]  # the hanzi before, this one, the two after
        nxt_syl = chars[i + 1][1] if i + 1 < len(chars) else None
        if c == "一":
            out[i] = _yi(around, nxt_syl, w.text, at_end) or syl
        elif c == "不":
            out[i] = _bu(around, nxt_syl)
        elif c == "得" and w.text == c and i and _next_text(words, w).startswith(DEGREE):
            out[i] = "de5"
        elif c == "调" and around[2] in TIAO_BEFORE and around[0] != "被":
            out[i] = "tiao2"
    result: list[tuple[str, ...]] = []
    for w in words:
        n = min(len(w.text), len(w.syllables))
        result.append((*out[:n], *w.syllables[n:]))
        out = out[n:]
    return result


def _next_text(words: list[Word], word: Word) -> str:
    """The text after ``word`` in the run."""
    at = next(i for i, w in enumerate(words) if w is word)
    return "".join(w.text for w in words[at + 1 :])

"""Pinyin for the speech front-end, from pypinyin's bundled dictionaries (nothing downloaded),
and homophone characters for engines that take no phoneme markup (edge). The readings come
from a table of pypinyin's own, computed when the cache is built (service/adapters/
pinyinindex.py), so a render imports pypinyin only for a word the table lacks.

Measured before choosing: pypinyin-dict's larger phrase data (cc_cedict, large_pinyin) fixed
none of the 多音字 that go wrong in the examples (长上下文, 方差, 当奖励 ...), costs 108 MB and
0.3-1.4 s of loading, so it is not used; those words are in voices/lexicon/zh.tsv instead.
cn2an is not used either: the numerals are a few lines (service/domain/speech/numbers.py) and
its date reading is wrong (2026-09-30 -> 二千零二十六负九负三十)."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from service.adapters.text import pinyinindex
from service.adapters.text.segmenter import cjk_words, word_freq
from service.adapters.text.segmenter import warm as warm_segmenter
from service.domain.speech import Lexicon, Tools
from service.domain.speech.lexicon import parse_tsv
from service.domain.speech.pinyin import to_tone3

_lock = threading.Lock()
_table: pinyinindex.Readings | None = None


def _readings() -> pinyinindex.Readings:
    """The process's readings table (pinyinindex: built into the cache first if missing)."""
    global _table
    with _lock:
        if _table is None:
            _table = pinyinindex.load()
        return _table


@lru_cache(maxsize=16384)
def _word(word: str) -> tuple[str, ...]:
    # pypinyin's reading, from the table; a word it lacks (a number in hanzi) is read live.
    found = _readings().get(word)
    return found if found is not None else pinyinindex.live(word)


def warm(misses: bool = False) -> None:
    """Open the word index and the readings table now (milliseconds; a one-off build when
    the cache is missing) rather than inside the first Chinese segment (the CLI does it in a
    thread while ffprobe runs, a worker as its process starts). ``misses``: import pypinyin
    too (~0.3 s), for the words the table lacks (numbers in hanzi): a long-lived worker
    pays that once as it starts, not inside a task."""
    warm_segmenter()
    _readings()
    if misses:
        pinyinindex.live("中")


def word_pinyin(word: str) -> list[str]:
    """Tone-number syllables of a CJK word, one per character."""
    return list(_word(word))


@lru_cache(maxsize=1)
def _homophones() -> dict[str, str]:
    """tone-number syllable -> the most frequent character that has only that reading."""
    from pypinyin.pinyin_dict import pinyin_dict

    best: dict[str, tuple[int, str]] = {}
    for code, readings in pinyin_dict.items():
        if "," in readings:
            continue
        ch = chr(code)
        try:
            syl = to_tone3(readings)
        except ValueError:
            continue
        n = word_freq(ch)
        if n and (syl not in best or n > best[syl][0]):
            best[syl] = (n, ch)
    return {s: ch for s, (_, ch) in best.items()}


def homophone(syllable: str) -> str | None:
    return _homophones().get(syllable)


def speech_tools() -> Tools:
    return Tools(cjk_words, word_pinyin, homophone)


@lru_cache(maxsize=8)
def load_lexicon(path: Path) -> Lexicon:
    """The shipped lexicon for a language (empty when there is none)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return parse_tsv(text)

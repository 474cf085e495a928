"""pypinyin's readings of every word the segmenter can give, computed once into a cache file,
so that a cold process never imports pypinyin's tables (phrases_dict, pinyin_dict and mmseg:
~0.33 s of CPU before the first syllable).

A reading is exactly ``live(word)``: ``lazy_pinyin([word], style=Style.TONE3,
neutral_tone_with_five=True, tone_sandhi=True, errors="ignore")``. It is stored for every word
of jieba's dictionary, the words the segmenter adds (EXTRA_WORDS), the front-end's symbol words
(≠ 不等于) and every character pypinyin knows (``pinyin_dict``): every word the segmenter gives
is one of those, so only other strings the front-end reads whole (a number in hanzi,
三千一百亿) miss and are read live.

The file is the word index's layout, checks and cache (wordindex.Table, pack, cached): one
bucket per first two characters, its text the words, then their readings (syllables joined by
spaces), each tab-joined, on two lines. Its key holds the dictionary's key, pypinyin's version
and the added words: a new pypinyin, dictionary or word list builds a new file."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import mmap
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from service.adapters.text import wordindex
from service.adapters.text.added_words import EXTRA_WORDS
from service.domain.speech.zh_tables import SYMBOLS

MAGIC = b"NRPYIX01"  # bump the digit when the layout or the call in ``live`` changes
NAME = "pypinyin-readings"


def live(word: str) -> tuple[str, ...]:
    """pypinyin's reading of one pre-segmented word (a list of one): its phrase dictionary
    resolves the 多音字; tone sandhi of 一 and 不 applied, as they are said (3-3 sandhi is left
    to the engine)."""
    from pypinyin import Style, lazy_pinyin

    out = lazy_pinyin(
        [word], style=Style.TONE3, neutral_tone_with_five=True, tone_sandhi=True, errors="ignore"
    )
    return tuple(out)


def added_words() -> list[str]:
    """Words outside jieba's dictionary that are read whole: the segmenter's own, and the
    Chinese words symbols are said as."""
    return [*EXTRA_WORDS, *(said for said in SYMBOLS.values() if not said.isascii())]


def pypinyin_version() -> str:
    return wordindex.package_version(wordindex.package_dir("pypinyin"))


def cache_key(words_key: str, added: Sequence[str]) -> str:
    digest = hashlib.sha256("\t".join(added).encode()).hexdigest()[:16]
    return f"{MAGIC.decode()}|{words_key}|pypinyin {pypinyin_version()}|added {digest}"


@contextlib.contextmanager
def _memoized(module: ModuleType, names: Sequence[str]) -> Iterator[None]:
    """The module's functions ``names`` memoized while the block runs (those that exist).
    Only for pure functions: a caller in another thread meanwhile gets the same values."""
    saved = {name: getattr(module, name) for name in names if callable(getattr(module, name, 0))}
    for name, func in saved.items():
        setattr(module, name, functools.cache(func))
    try:
        yield
    finally:
        for name, func in saved.items():
            setattr(module, name, func)


def readings(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``live`` of each word (once each), about 6x faster: one Pinyin object with the converter that
    ``lazy_pinyin`` makes per call, its per-syllable style conversion memoized, and tone
    sandhi's tone-format conversions (pure functions of a syllable) memoized meanwhile."""
    from pypinyin import Style
    from pypinyin.contrib import tone_sandhi
    from pypinyin.converter import UltimateConverter
    from pypinyin.core import Pinyin

    class Converter(UltimateConverter):
        # (han, syllable, style, strict) -> the styled syllable; this object dies with the call
        @functools.cache  # noqa: B019
        def convert_style(self, *args: Any, **kwargs: Any) -> str:
            return super().convert_style(*args, **kwargs)

    # What lazy_pinyin(hans, style, errors, v_to_u=False, neutral_tone_with_five=True,
    # tone_sandhi=True) calls, strict left at its default (True).
    pinyin = Pinyin(Converter(v_to_u=False, neutral_tone_with_five=True, tone_sandhi=True))
    read: Callable[..., list[str]] = pinyin.lazy_pinyin
    out: dict[str, tuple[str, ...]] = {}
    with _memoized(tone_sandhi, ("tone_to_tone2", "tone2_to_tone")):
        for word in words:
            if word not in out:
                out[word] = tuple(read([word], style=Style.TONE3, errors="ignore", strict=True))
    return out


def build_bytes(source: Path, key: str, added: Sequence[str]) -> bytes:
    """The table file's bytes: the readings of the dictionary's words at ``source``, of
    ``added`` and of pypinyin's characters."""
    from pypinyin.pinyin_dict import pinyin_dict

    got = readings([*wordindex.words(source), *added, *map(chr, pinyin_dict)])
    groups: dict[str, list[str]] = {}
    for word, said in got.items():
        if not word or "\t" in word or "\n" in word or any(len(s.split()) != 1 for s in said):
            raise ValueError(f"{word!r} -> {said!r}: the table cannot hold it")
        groups.setdefault(word[:2], []).append(word)
    buckets = {
        prefix: "\t".join(entries) + "\n" + "\t".join(" ".join(got[w]) for w in entries)
        for prefix, entries in groups.items()
    }
    return wordindex.pack(MAGIC, key, len(got), buckets)


class Readings(wordindex.Table):
    """The readings table: a word's reading, or None when the table lacks the word."""

    MAGIC = MAGIC

    def __init__(self, buf: bytes | mmap.mmap, key: str) -> None:
        super().__init__(buf, key)
        self._buckets: dict[str, dict[str, str]] = {}

    def get(self, word: str) -> tuple[str, ...] | None:
        if not word:
            return None
        prefix = word[:2]
        bucket = self._buckets.get(prefix)
        if bucket is None:
            text = self.text(prefix)
            if text is None:
                bucket = {}
            else:
                words, said = text.split("\n")
                bucket = dict(zip(words.split("\t"), said.split("\t"), strict=True))
            self._buckets[prefix] = bucket
        found = bucket.get(word)
        return None if found is None else tuple(found.split())


def cache_target(cache_dir: Path, source: Path, added: Sequence[str]) -> tuple[Path, str]:
    """Where the table of ``source`` and ``added`` lives in ``cache_dir``, and its key."""
    key = cache_key(wordindex.cache_key(source), added)
    return wordindex.cache_file(cache_dir, key, NAME), key


def load(
    cache_dir: Path | None = None, source: Path | None = None, added: Sequence[str] | None = None
) -> Readings:
    """The readings of ``source`` (jieba's bundled dictionary) and ``added`` (``added_words``)
    from the cache, built there first (about 10 s, importing pypinyin) if it is missing,
    damaged or stale."""
    source = source or wordindex.dict_path()
    extra = added_words() if added is None else list(added)
    target, key = cache_target(cache_dir or wordindex.default_cache(), source, extra)
    return wordindex.cached(Readings, target, key, lambda: build_bytes(source, key, extra))

"""CJK word segmentation with part-of-speech tags from jieba's bundled dictionary (no
download), so that phrase and line breaks never fall inside a Chinese word and the break costs
can tell a preposition from a noun.

The words and tags are exactly jieba's ``cut(HMM=False)`` and ``posseg.cut(HMM=False)`` after
``add_word`` of EXTRA_WORDS, without importing jieba: loading its dictionary costs a cold
process about 1.3 s of CPU, segmenting a script milliseconds. The dictionary is read from a
memory-mapped index (service/adapters/text/wordindex.py, built once into a cache) one first
character at a time, and jieba 0.42's algorithms are reproduced here line for line (its
``get_DAG``, ``calc``, ``__cut_DAG_NO_HMM``, ``cut``, and posseg's ``__cut_DAG_NO_HMM`` and
``__cut_internal``), quirks included; tests compare with jieba itself."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from math import log
from pathlib import Path

from service.adapters.text import wordindex
from service.adapters.text.added_words import EXTRA_FREQ, EXTRA_WORDS

# jieba/__init__.py: the blocks jieba.cut segments, and what it skips.
_HAN_DEFAULT = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)", re.U)
_SKIP_DEFAULT = re.compile("(\r\n|\\s)", re.U)
_ENG = re.compile("[a-zA-Z0-9]", re.U)
# jieba/posseg/__init__.py: its own blocks (no % or -) and tags for what is not a word.
_HAN_INTERNAL = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._]+)")
_SKIP_INTERNAL = re.compile("(\r\n|\\s)")
_ENG_RUN = re.compile("[a-zA-Z0-9]+")
_NUM = re.compile("[\\.0-9]+")
_ENG1 = re.compile("^[a-zA-Z0-9]$", re.U)

Bucket = tuple[dict[str, int], dict[str, str]]


class DictSegmenter:
    """jieba's default tokenizer and POS tokenizer (HMM off) over an index, with words
    added as ``jieba.add_word(word, freq, tag)`` adds them, in order."""

    def __init__(self, index: wordindex.Index, added: Iterable[tuple[str, int, str]]) -> None:
        self._index = index
        # add_word's changes by bucket, in order: (entry, freq or None for a prefix, tag)
        self._added: dict[str, list[tuple[str, int | None, str]]] = {}
        total = index.total
        for word, freq, tag in added:
            for end in range(1, len(word) + 1):
                entry = (word, freq, tag) if end == len(word) else (word[:end], None, "")
                self._added.setdefault(word[:end][:2], []).append(entry)
            total += freq  # jieba adds it even when the word was there
        self.total = total
        self._logtotal = log(total)
        self._buckets: dict[str, Bucket] = {}

    def _bucket(self, prefix: str) -> Bucket:
        """Freqs and tags of the entries that are ``prefix`` (one character) or start with it
        (two): the index's, then add_word's changes (the word's freq replaced, its tag set,
        missing prefixes at 0)."""
        found = self._buckets.get(prefix)
        if found is None:
            freqs, tags = self._index.bucket(prefix)
            for entry, freq, tag in self._added.get(prefix, ()):
                if freq is None:
                    freqs.setdefault(entry, 0)
                    continue
                freqs[entry] = freq
                if tag:
                    tags[entry] = tag
            found = self._buckets[prefix] = (freqs, tags)
        return found

    def freq(self, word: str) -> int:
        """A word's freq (0 for a prefix or an unknown word), as ``jieba.dt.FREQ.get(w, 0)``."""
        return self._bucket(word[:2])[0].get(word, 0) if word else 0

    def _route(self, sentence: str) -> list[int]:
        """Where the best word starting at each position ends (inclusive): jieba's get_DAG
        and calc, the same floats in the same order, ties to the longer word."""
        n = len(sentence)
        dag: list[list[tuple[int, int]]] = []
        for k in range(n):
            ends = []
            i = k
            frag = sentence[k]
            freqs = self._bucket(frag)[0]
            while i < n and frag in freqs:
                if freqs[frag]:
                    ends.append((i, freqs[frag]))
                i += 1
                frag = sentence[k : i + 1]
                if i == k + 1 and i < n:
                    freqs = self._bucket(frag)[0]  # the pair's bucket: all longer entries too
            dag.append(ends or [(k, 1)])  # FREQ.get(...) or 1: an unknown char costs log(1)
        logtotal = self._logtotal
        route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        for idx in range(n - 1, -1, -1):
            route[idx] = max((log(f) - logtotal + route[x + 1][0], x) for x, f in dag[idx])
        return [end for _, end in route[:n]]

    def _words(self, block: str) -> list[str]:
        """Tokenizer.__cut_DAG_NO_HMM: route words; single ASCII letters/digits in a row
        buffered into one."""
        route = self._route(block)
        out: list[str] = []
        x, buf = 0, ""
        while x < len(block):
            y = route[x] + 1
            word = block[x:y]
            if _ENG.match(word) and len(word) == 1:
                buf += word
            else:
                if buf:
                    out.append(buf)
                    buf = ""
                out.append(word)
            x = y
        if buf:
            out.append(buf)
        return out

    def _tagged(self, block: str) -> list[tuple[str, str]]:
        """POSTokenizer.__cut_DAG_NO_HMM: the same route, letter runs tagged eng, words
        tagged from the dictionary (and add_word), x when untagged."""
        route = self._route(block)
        out: list[tuple[str, str]] = []
        x, buf = 0, ""
        while x < len(block):
            y = route[x] + 1
            word = block[x:y]
            if _ENG1.match(word):
                buf += word
            else:
                if buf:
                    out.append((buf, "eng"))
                    buf = ""
                out.append((word, self._bucket(word[:2])[1].get(word) or "x"))
            x = y
        if buf:
            out.append((buf, "eng"))
        return out

    def cut(self, sentence: str) -> list[str]:
        """jieba.cut(sentence, HMM=False)."""
        out: list[str] = []
        for blk in _HAN_DEFAULT.split(sentence):
            if not blk:
                continue
            if _HAN_DEFAULT.match(blk):
                out += self._words(blk)
                continue
            for x in _SKIP_DEFAULT.split(blk):
                if _SKIP_DEFAULT.match(x):
                    out.append(x)
                else:
                    out += x  # one token per character
        return out

    def tag_cut(self, sentence: str) -> list[tuple[str, str]]:
        """jieba.posseg.cut(sentence, HMM=False) as (word, flag) pairs."""
        out: list[tuple[str, str]] = []
        for blk in _HAN_INTERNAL.split(sentence):
            if _HAN_INTERNAL.match(blk):
                out += self._tagged(blk)
                continue
            for x in _SKIP_INTERNAL.split(blk):
                if _SKIP_INTERNAL.match(x):
                    out.append((x, "x"))
                    continue
                for xx in x:
                    # (jieba tests the whole piece x for eng, the character for m)
                    flag = "m" if _NUM.match(xx) else "eng" if _ENG_RUN.match(x) else "x"
                    out.append((xx, flag))
        return out


_lock = threading.Lock()
_segmenter: DictSegmenter | None = None


def segmenter() -> DictSegmenter:
    """The process's segmenter: the cached index (built first if missing or damaged) with
    EXTRA_WORDS added."""
    global _segmenter
    with _lock:
        if _segmenter is None:
            index = wordindex.load()
            _segmenter = DictSegmenter(index, ((w, EXTRA_FREQ, t) for w, t in EXTRA_WORDS.items()))
        return _segmenter


@lru_cache(maxsize=8192)
def _cut(run: str) -> tuple[str, ...]:
    # HMM off: dictionary words only, so unknown sequences stay breakable character by character.
    return tuple(segmenter().cut(run))


@lru_cache(maxsize=8192)
def _tagged(run: str) -> tuple[tuple[str, str], ...]:
    return tuple(segmenter().tag_cut(run))


def cjk_words(run: str) -> list[str]:
    """The words of a CJK run (no tags): for callers that only need word boundaries."""
    return list(_cut(run))


def tagged_words(run: str) -> list[tuple[str, str]]:
    """The words of a CJK run with their jieba part-of-speech tags (``n``, ``v``, ``p``, ...):
    the segmenter the subtitle layout and the phrase splitter use."""
    return list(_tagged(run))


def word_freq(word: str) -> int:
    """A word's frequency in the dictionary (0 when absent), as jieba counts it."""
    return segmenter().freq(word)


def warm() -> None:
    """Open the dictionary index now (milliseconds; a one-off build of about 2 s when the
    cache is missing) rather than inside a timed task."""
    segmenter()


def main(argv: list[str] | None = None) -> int:
    """``python -m service.adapters.text.segmenter [CACHE]``: build the dictionary index and the
    pinyin readings table (service/adapters/text/pinyinindex.py) into the cache ahead of time (the
    test script and the Docker image do), or check they are there."""
    import sys
    import time

    from service.adapters.text import pinyinindex

    args = sys.argv[1:] if argv is None else argv
    cache = Path(args[0]) if args else wordindex.default_cache()
    source = wordindex.dict_path()
    t0 = time.perf_counter()
    index = wordindex.load(cache, source)
    target = wordindex.cache_file(cache, wordindex.cache_key(source))
    where = target if target.is_file() else "memory only (cache not writable)"
    print(f"segmenter: dictionary index ready in {time.perf_counter() - t0:.2f} s -> {where}")
    t0 = time.perf_counter()
    readings = pinyinindex.load(cache, source)
    target = pinyinindex.cache_target(cache, source, pinyinindex.added_words())[0]
    where = target if target.is_file() else "memory only (cache not writable)"
    print(f"segmenter: pinyin readings ready in {time.perf_counter() - t0:.2f} s -> {where}")
    return 0 if index.total and readings.total else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The segmenter gives exactly jieba's words and tags (cut and posseg.cut, HMM off, with the same
add_word calls) without importing jieba, from a cached dictionary index that is rebuilt when
stale, damaged or missing, safely from concurrent processes; the pinyin of its words is exactly
pypinyin's, from a table built next to that index (or pypinyin itself for a word it lacks).

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/adapters/test_segmenter.py."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jieba
import jieba.posseg
import pypinyin
import pytest
from pypinyin.contrib import tone_sandhi
from pypinyin.pinyin_dict import pinyin_dict

from service.adapters.text import pinyinindex, wordindex
from service.adapters.text.added_words import EXTRA_FREQ, EXTRA_WORDS
from service.adapters.text.pinyin import word_pinyin
from service.adapters.text.segmenter import (
    DictSegmenter,
)
from tests.unit.adapters.test_segmenter import (
    FIRST_USE,
    TONE_TO_TONE2,
    _run,
    _small_dictionary,
    assert_same,
    damaged,
    example_words,
    jieba_reference,
    pypinyin_reading,
)


@pytest.fixture(scope="module")
def reference() -> tuple[Any, Any]:
    return jieba_reference()


def test_processes_on_first_use_build_one_whole_cache_and_never_import_jieba(
    reference: Any, tmp_path: Path
) -> None:
    """Two processes start on an empty cache at once (each may build it: one whole file is
    left, no temp file); a third maps the file they left instead of building it again."""
    tk, pos = reference
    want = [
        list(tk.cut("我们在显卡上训练大模型", HMM=False)),
        [[p.word, p.flag] for p in pos.cut("评分员对通过的轨迹排序", HMM=False)],
        "马",
        False,  # jieba was not imported
    ]
    cache = tmp_path / "cache"
    env = {**os.environ, "NARRATE_SEGMENTER_CACHE": str(cache)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", FIRST_USE], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    (built,) = cache.iterdir()  # one index, no temp file left behind
    assert built.name.endswith(".idx")
    key = wordindex.cache_key(wordindex.dict_path())
    assert wordindex.Index(built.read_bytes(), key).total > 0
    inode = built.stat().st_ino
    outs.append(_run(FIRST_USE, cache).stdout)
    assert [json.loads(out) for out in outs] == [want] * 3
    assert list(cache.iterdir()) == [built] and built.stat().st_ino == inode  # not replaced


def test_the_cache_is_rebuilt_when_the_dictionary_changes(tmp_path: Path) -> None:
    src = _small_dictionary(tmp_path)  # the rule is the same for any size: a build costs less
    cache = tmp_path / "cache"
    before = wordindex.load(cache, src)
    assert before.bucket("狍子")[0].get("狍子狍") is None
    src.write_bytes(src.read_bytes() + "狍子狍 7 n\n".encode())  # size and mtime change
    after = wordindex.load(cache, src)
    assert after.bucket("狍子")[0]["狍子狍"] == 7 and after.total == before.total + 7
    assert len(list(cache.glob("*.idx"))) == 2  # the new key has a file of its own
    with pytest.raises(wordindex.CorruptIndex):
        wordindex.Index(next(cache.glob("*.idx")).read_bytes(), "another key")


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_cache_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    src = _small_dictionary(tmp_path, "的 318825 uj\n")  # jieba's count: a small build
    cache = tmp_path / "cache"
    wordindex.load(cache, src)
    (target,) = cache.glob("*.idx")
    good = target.read_bytes()
    bad = damaged(good, damage)
    target.write_bytes(bad)
    key = wordindex.cache_key(src)
    with pytest.raises(wordindex.CorruptIndex):
        wordindex.Index(bad, key)
    index = wordindex.load(cache, src)
    assert target.read_bytes() == good
    assert index.bucket("的")[0]["的"] == wordindex.Index(good, key).bucket("的")[0]["的"] > 0


def _reference_of(src: Path) -> tuple[Any, Any]:
    """jieba set up as jieba_reference sets it up, but over the dictionary at ``src``."""
    tk = jieba.Tokenizer(str(src))
    tk.tmp_dir = str(src.parent)  # its own cache of that dictionary, beside it
    tk.initialize()
    pos = jieba.posseg.POSTokenizer(tk)
    for word, tag in EXTRA_WORDS.items():
        tk.add_word(word, freq=EXTRA_FREQ, tag=tag)
    return tk, pos


def test_an_unwritable_cache_builds_in_memory(tmp_path: Path) -> None:
    """The index built in memory segments as jieba does over the same dictionary: a small
    one (the fallback does not depend on its size; jieba's whole one is ~4 s of CPU)."""
    src = _small_dictionary(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    index = wordindex.load(blocker / "cache", src)
    assert blocker.read_text() == "not a directory"
    seg = DictSegmenter(index, [(w, EXTRA_FREQ, t) for w, t in EXTRA_WORDS.items()])
    assert_same(_reference_of(src), seg, "狍子在显卡上训练大模型，一定不是行长的过拟合")


def test_the_readings_are_pypinyins() -> None:
    table = pinyinindex.load()
    rng = random.Random(20261130)
    words = list(dict.fromkeys(wordindex.words(wordindex.dict_path())))
    chars = [chr(c) for c in pinyin_dict]
    examples = example_words()
    assert len(examples) > 300 and "上下文" in examples
    sample = [
        *rng.sample(words, 8000),
        *rng.sample(chars, 2000),
        *examples,
        *pinyinindex.added_words(),
        *"一不",  # the tone sandhi's characters, alone and in words
        *[w for w in words if w.startswith(("一", "不")) and len(w) < 4][:500],
    ]
    for word in sample:
        want = pypinyin_reading(word)
        assert table.get(word) == want, word
        assert word_pinyin(word) == list(want), word
    assert pinyinindex.pypinyin_version() == pypinyin.__version__


def test_every_word_and_character_is_in_the_table() -> None:
    table = pinyinindex.load()
    words = [*wordindex.words(wordindex.dict_path()), *map(chr, pinyin_dict)]
    missing = [w for w in words if table.get(w) is None]
    assert missing == [] and table.total == len(set(words) | set(pinyinindex.added_words()))
    assert table.get("B超") == pypinyin_reading("B超") == ("chao1",)  # the letter is dropped


@pytest.fixture
def few_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """pypinyin's character list, which a readings build reads whole (41k characters: ~2 s of
    CPU a build), cut to the characters these tests read, for tests of when a table is
    (re)built rather than of its size. The readings stay pypinyin's: its converter keeps its
    own reference to the whole table."""
    from pypinyin import pinyin_dict as module

    few = {ord(c): module.pinyin_dict[ord(c)] for c in "狍子一定不是大模型行长算力显卡中国"}
    monkeypatch.setattr(module, "pinyin_dict", few)


@pytest.mark.usefixtures("few_characters")
def test_the_readings_are_rebuilt_for_a_new_pypinyin_dictionary_or_word_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _small_dictionary(tmp_path)
    cache = tmp_path / "cache"
    table = pinyinindex.load(cache, src, ["算力"])
    assert table.get("行长") == pypinyin_reading("行长") and table.get("算力") == ("suan4", "li4")
    assert table.get("中国") is None  # not in this dictionary
    assert tone_sandhi.tone_to_tone2 is TONE_TO_TONE2  # type: ignore[attr-defined]  # the build's memo is undone
    monkeypatch.setattr(pinyinindex, "pypinyin_version", lambda: "99.0")
    pinyinindex.load(cache, src, ["算力"])
    assert len(list(cache.glob("pypinyin-readings-*.idx"))) == 2  # a new pypinyin, a new file
    assert pinyinindex.load(cache, src, ["算力", "显卡"]).get("显卡") == pypinyin_reading("显卡")
    src.write_text(src.read_text(encoding="utf-8") + "中国 7 ns\n", encoding="utf-8")
    assert pinyinindex.load(cache, src, ["算力"]).get("中国") == ("zhong1", "guo2")
    assert len(list(cache.glob("pypinyin-readings-*.idx"))) == 4
    with pytest.raises(wordindex.CorruptIndex):  # the key is checked, not only the file name
        pinyinindex.Readings(next(cache.glob("*.idx")).read_bytes(), "another key")


@pytest.mark.usefixtures("few_characters")
def test_a_damaged_readings_file_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    src = _small_dictionary(tmp_path)
    cache = tmp_path / "cache"
    pinyinindex.load(cache, src, ["算力"])
    (target,) = cache.glob("*.idx")
    good = target.read_bytes()
    _, key = pinyinindex.cache_target(cache, src, ["算力"])
    for damage in ("truncate", "flip", "empty", "garbage"):
        bad = damaged(good, damage)
        with pytest.raises(wordindex.CorruptIndex):
            pinyinindex.Readings(bad, key)
        target.write_bytes(bad)
        table = pinyinindex.load(cache, src, ["算力"])
        assert target.read_bytes() == good, damage
        assert table.get("一定") == pypinyin_reading("一定") == ("yi2", "ding4")

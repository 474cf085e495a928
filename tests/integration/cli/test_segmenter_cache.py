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

import pypinyin
import pytest
from pypinyin.contrib import tone_sandhi
from pypinyin.pinyin_dict import pinyin_dict

from service.adapters import pinyinindex, wordindex
from service.adapters.added_words import EXTRA_FREQ, EXTRA_WORDS
from service.adapters.pinyin import word_pinyin
from service.adapters.segmenter import (
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


def test_a_fresh_process_builds_the_cache_and_never_imports_jieba(
    reference: Any, tmp_path: Path
) -> None:
    tk, pos = reference
    cache = tmp_path / "cache"
    for _ in range(2):  # the first builds the index, the second maps it
        words, tags, ma3, imported = json.loads(_run(FIRST_USE, cache).stdout)
        assert words == list(tk.cut("我们在显卡上训练大模型", HMM=False))
        assert [tuple(t) for t in tags] == [
            (p.word, p.flag) for p in pos.cut("评分员对通过的轨迹排序", HMM=False)
        ]
        assert ma3 == "马" and not imported
        assert len(list(cache.glob("*.idx"))) == 1


def test_two_processes_on_first_use_share_one_whole_cache_file(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "NARRATE_SEGMENTER_CACHE": str(cache)}
    code = "from service.adapters.segmenter import tagged_words as t; print(t('显卡上的算力'))"
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs[0] == outs[1] and "('算力', 'n')" in outs[0]
    (built,) = cache.iterdir()  # one index, no temp file left behind
    key = wordindex.cache_key(wordindex.dict_path())
    assert built.name.endswith(".idx")
    assert wordindex.Index(built.read_bytes(), key).total > 0


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


def test_an_unwritable_cache_builds_in_memory(reference: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    index = wordindex.load(blocker / "cache")
    seg = DictSegmenter(index, [(w, EXTRA_FREQ, t) for w, t in EXTRA_WORDS.items()])
    assert_same(reference, seg, "数据集上的过拟合与欠拟合")


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


def test_a_damaged_readings_file_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    """Every kind of damage is refused by the reader; one of them is then rebuilt whole (a
    build reads all of pypinyin's characters: one rebuild shows the rule, four cost ~2 min)."""
    src = _small_dictionary(tmp_path)
    cache = tmp_path / "cache"
    pinyinindex.load(cache, src, ["算力"])
    (target,) = cache.glob("*.idx")
    good = target.read_bytes()
    _, key = pinyinindex.cache_target(cache, src, ["算力"])
    for damage in ("truncate", "flip", "empty", "garbage"):
        with pytest.raises(wordindex.CorruptIndex):
            pinyinindex.Readings(damaged(good, damage), key)
    target.write_bytes(damaged(good, "flip"))
    table = pinyinindex.load(cache, src, ["算力"])
    assert target.read_bytes() == good
    assert table.get("一定") == pypinyin_reading("一定") == ("yi2", "ding4")

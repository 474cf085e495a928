"""The segmenter gives exactly jieba's words and tags (cut and posseg.cut, HMM off, with the same
add_word calls) without importing jieba, from a cached dictionary index that is rebuilt when
stale, damaged or missing, safely from concurrent processes; the pinyin of its words is exactly
pypinyin's, from a table built next to that index (or pypinyin itself for a word it lacks)."""

from __future__ import annotations

import ast
import json
import logging
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jieba
import jieba.posseg
import pypinyin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import Style, lazy_pinyin
from pypinyin.contrib import tone_sandhi
from pypinyin.pinyin_dict import pinyin_dict

from service.adapters import pinyinindex, wordindex
from service.adapters.added_words import EXTRA_FREQ, EXTRA_WORDS
from service.adapters.pinyin import word_pinyin
from service.adapters.segmenter import (
    DictSegmenter,
    cjk_words,
    segmenter,
)
from service.domain.speech import zh_tables

ROOT = Path(__file__).resolve().parent.parent
CJK = range(0x4E00, 0x9FD6)
TONE_TO_TONE2 = tone_sandhi.tone_to_tone2  # type: ignore[attr-defined]  # not in pypinyin's stub


@pytest.fixture(scope="module")
def reference() -> tuple[jieba.Tokenizer, jieba.posseg.POSTokenizer]:
    """jieba itself, set up as the segmenter used to set it up."""
    jieba.setLogLevel(logging.WARNING)
    tk = jieba.Tokenizer()
    tk.initialize()
    pos = jieba.posseg.POSTokenizer(tk)
    for word, tag in EXTRA_WORDS.items():
        tk.add_word(word, freq=EXTRA_FREQ, tag=tag)
    return tk, pos


def assert_same(reference: tuple[Any, Any], seg: DictSegmenter, text: str) -> None:
    tk, pos = reference
    assert seg.cut(text) == list(tk.cut(text, HMM=False)), text
    assert seg.tag_cut(text) == [(p.word, p.flag) for p in pos.cut(text, HMM=False)], text


def suite_sentences() -> Iterator[str]:
    """Every string with a Chinese character in the test suite (subtitle, speech, render...)."""
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and any(ord(c) in CJK for c in text):
                yield text


def test_same_as_jieba_on_the_examples_and_the_test_sentences(reference: Any) -> None:
    seg = segmenter()
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.md"))]
    sentences = list(suite_sentences())
    assert len(texts) >= 3 and len(sentences) > 100
    for text in texts + sentences:
        assert_same(reference, seg, text)
        for line in text.splitlines():  # shorter blocks: other routes and block edges
            assert_same(reference, seg, line)
    assert seg.total == reference[0].total


EDGES = [
    "",
    "\r\n",
    "a\r\nb \t\u3000c",
    "C++与C#、AT&T和B超,T恤 A股",
    "50%的显存-前向传播_3.14",
    "GPU 8bit 量化: 90.5% → 1e-3",
    "ＡＢＣ１２３ 全角，标点。",
    "算力算力大模型小模型长文本去重",
    "前向前向传播反向传播",
    "a1b2c3 x y z 12 ab",
    "𠀀𠀁 emoji 🙂 ǎ ü",
]


@pytest.mark.parametrize("text", EDGES)
def test_same_as_jieba_at_the_edges(reference: Any, text: str) -> None:
    assert_same(reference, segmenter(), text)


def _alphabet() -> list[str]:
    examples = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "examples").glob("*.md"))
    hanzi = sorted({c for c in examples if ord(c) in CJK} | set("的一是不了人我在有他这中大来上"))
    ascii_ = list("abcxyzABCTQ0123456789")
    punct = list(",.;:!?()[]\"'，。；：！？（）【】“”、…—·《》")
    spaces = [" ", "\t", "\n", "\r\n", "\u3000"]
    symbols = list("+#&._%-/*=@$^~|<>→×")
    return hanzi + ascii_ + punct + spaces + symbols


_WORDS = [*EXTRA_WORDS, "C++", "c#", "AT&T", "B超", "T恤", "卡拉OK", "一个", "中华人民共和国"]
_PIECES = st.one_of(st.sampled_from(_alphabet()), st.sampled_from(_WORDS))


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_same_as_jieba_on_random_text(reference: Any, text: str) -> None:
    assert_same(reference, segmenter(), text)


def test_word_freq_is_jiebas(reference: Any) -> None:
    tk, _ = reference
    seg = segmenter()
    for w in ["的", "一", "算", "算力", "大模型", "中华人民共和", "不存在的词", "𠀀", "C", "C++"]:
        assert seg.freq(w) == tk.FREQ.get(w, 0), w


def _run(code: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NARRATE_SEGMENTER_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


FIRST_USE = """
import json, sys
from service.adapters.pinyin import homophone
from service.adapters.segmenter import cjk_words, tagged_words
words = cjk_words("我们在显卡上训练大模型")
tags = tagged_words("评分员对通过的轨迹排序")
print(json.dumps([words, tags, homophone("ma3"), "jieba" in sys.modules]))
"""


@pytest.mark.integration
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


@pytest.mark.integration
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


def _dictionary(tmp_path: Path, extra: str = "") -> Path:
    src = tmp_path / "dict.txt"
    src.write_bytes(wordindex.dict_path().read_bytes() + extra.encode("utf-8"))
    (tmp_path / "__init__.py").write_text("__version__ = '0.42.1'\n")
    return src


@pytest.mark.integration
def test_the_cache_is_rebuilt_when_the_dictionary_changes(tmp_path: Path) -> None:
    src = _dictionary(tmp_path)
    cache = tmp_path / "cache"
    before = wordindex.load(cache, src)
    assert before.bucket("狍子")[0].get("狍子狍") is None
    src.write_bytes(src.read_bytes() + "狍子狍 7 n\n".encode())  # size and mtime change
    after = wordindex.load(cache, src)
    assert after.bucket("狍子")[0]["狍子狍"] == 7 and after.total == before.total + 7
    assert len(list(cache.glob("*.idx"))) == 2  # the new key has a file of its own
    with pytest.raises(wordindex.CorruptIndex):
        wordindex.Index(next(cache.glob("*.idx")).read_bytes(), "another key")


def damaged(good: bytes, damage: str) -> bytes:
    """A cache file's bytes cut short, with one bit flipped, emptied, or replaced."""
    return {
        "truncate": good[: len(good) // 2],
        "flip": good[:-100] + bytes([good[-100] ^ 0x20]) + good[-99:],
        "empty": b"",
        "garbage": os.urandom(4096),
    }[damage]


@pytest.mark.integration
@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_cache_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    src = _dictionary(tmp_path)
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


@pytest.mark.integration
def test_an_unwritable_cache_builds_in_memory(reference: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    index = wordindex.load(blocker / "cache")
    seg = DictSegmenter(index, [(w, EXTRA_FREQ, t) for w, t in EXTRA_WORDS.items()])
    assert_same(reference, seg, "数据集上的过拟合与欠拟合")


# -- pinyin readings table (service/adapters/pinyinindex.py) -----------------------------------


def pypinyin_reading(word: str) -> tuple[str, ...]:
    """What service/adapters/pinyin.py called for every word before the table."""
    out = lazy_pinyin(
        [word], style=Style.TONE3, neutral_tone_with_five=True, tone_sandhi=True, errors="ignore"
    )
    return tuple(out)


def example_words() -> list[str]:
    """Every CJK word the segmenter finds in the example scripts, whole and run by run (as the
    speech front-end cuts them)."""
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.md")))
    runs = re.findall(f"[{zh_tables.CJK}]+", text)
    words = [*segmenter().cut(text), *(w for run in runs for w in cjk_words(run))]
    return list(dict.fromkeys(w for w in words if any(ord(c) in CJK for c in w)))


@pytest.mark.integration
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


@pytest.mark.integration
def test_every_word_and_character_is_in_the_table() -> None:
    table = pinyinindex.load()
    words = [*wordindex.words(wordindex.dict_path()), *map(chr, pinyin_dict)]
    missing = [w for w in words if table.get(w) is None]
    assert missing == [] and table.total == len(set(words) | set(pinyinindex.added_words()))
    assert table.get("B超") == pypinyin_reading("B超") == ("chao1",)  # the letter is dropped


@pytest.mark.parametrize("word", ["三千一百亿", "一点零二万亿", "不一不二", "狍子狍", "𠀀𠀀"])
def test_a_word_the_table_lacks_is_read_by_pypinyin(word: str) -> None:
    assert pinyinindex.load().get(word) is None
    assert word_pinyin(word) == list(pypinyin_reading(word)) != []


def _small_dictionary(tmp_path: Path) -> Path:
    """A dictionary of a few words, so that a build reads little more than pypinyin's chars."""
    src = tmp_path / "dict.txt"
    src.write_text("狍子 3 n\n一定 900 d\n不是 900 v\n大模型 5 n\n行长 40 n\n", encoding="utf-8")
    (tmp_path / "__init__.py").write_text("__version__ = '0.42.1'\n")
    return src


@pytest.mark.integration
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


@pytest.mark.integration
@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_readings_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    src = _small_dictionary(tmp_path)
    cache = tmp_path / "cache"
    pinyinindex.load(cache, src, ["算力"])
    (target,) = cache.glob("*.idx")
    good = target.read_bytes()
    bad = damaged(good, damage)
    target.write_bytes(bad)
    _, key = pinyinindex.cache_target(cache, src, ["算力"])
    with pytest.raises(wordindex.CorruptIndex):
        pinyinindex.Readings(bad, key)
    table = pinyinindex.load(cache, src, ["算力"])
    assert target.read_bytes() == good
    assert table.get("一定") == pypinyin_reading("一定") == ("yi2", "ding4")

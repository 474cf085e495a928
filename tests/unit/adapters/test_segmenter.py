"""The segmenter gives exactly jieba's words and tags (cut and posseg.cut, HMM off, with the same
add_word calls) without importing jieba, from a cached dictionary index that is rebuilt when
stale, damaged or missing, safely from concurrent processes; the pinyin of its words is exactly
pypinyin's, from a table built next to that index (or pypinyin itself for a word it lacks)."""

from __future__ import annotations

import ast
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jieba
import jieba.posseg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import Style, lazy_pinyin
from pypinyin.contrib import tone_sandhi

from service.adapters.text import pinyinindex, wordindex
from service.adapters.text.added_words import EXTRA_FREQ, EXTRA_WORDS
from service.adapters.text.pinyin import word_pinyin
from service.adapters.text.segmenter import (
    DictSegmenter,
    cjk_words,
    segmenter,
)
from service.domain.speech import zh_tables
from tests.support.data import ROOT

CJK = range(0x4E00, 0x9FD6)
TONE_TO_TONE2 = tone_sandhi.tone_to_tone2  # type: ignore[attr-defined]  # not in pypinyin's stub


def jieba_reference() -> tuple[jieba.Tokenizer, jieba.posseg.POSTokenizer]:
    """jieba itself, set up as the segmenter used to set it up."""
    jieba.setLogLevel(logging.WARNING)
    tk = jieba.Tokenizer()
    tk.initialize()
    pos = jieba.posseg.POSTokenizer(tk)
    for word, tag in EXTRA_WORDS.items():
        tk.add_word(word, freq=EXTRA_FREQ, tag=tag)
    return tk, pos


@pytest.fixture(scope="module")
def reference() -> tuple[jieba.Tokenizer, jieba.posseg.POSTokenizer]:
    return jieba_reference()


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
from service.adapters.text.pinyin import homophone
from service.adapters.text.segmenter import cjk_words, tagged_words
words = cjk_words("我们在显卡上训练大模型")
tags = tagged_words("评分员对通过的轨迹排序")
print(json.dumps([words, tags, homophone("ma3"), "jieba" in sys.modules]))
"""


def _dictionary(tmp_path: Path, extra: str = "") -> Path:
    src = tmp_path / "dict.txt"
    src.write_bytes(wordindex.dict_path().read_bytes() + extra.encode("utf-8"))
    (tmp_path / "__init__.py").write_text("__version__ = '0.42.1'\n")
    return src


def damaged(good: bytes, damage: str) -> bytes:
    """A cache file's bytes cut short, with one bit flipped, emptied, or replaced."""
    return {
        "truncate": good[: len(good) // 2],
        "flip": good[:-100] + bytes([good[-100] ^ 0x20]) + good[-99:],
        "empty": b"",
        "garbage": os.urandom(4096),
    }[damage]


# -- pinyin readings table (service/adapters/text/pinyinindex.py) -----------------------------------


def pypinyin_reading(word: str) -> tuple[str, ...]:
    """What service/adapters/text/pinyin.py called for every word before the table."""
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


@pytest.mark.parametrize("word", ["三千一百亿", "一点零二万亿", "不一不二", "狍子狍", "𠀀𠀀"])
def test_a_word_the_table_lacks_is_read_by_pypinyin(word: str) -> None:
    assert pinyinindex.load().get(word) is None
    assert word_pinyin(word) == list(pypinyin_reading(word)) != []


def _small_dictionary(tmp_path: Path, extra: str = "") -> Path:
    """A dictionary of a few words, so that a build reads little more than pypinyin's chars."""
    src = tmp_path / "dict.txt"
    words = "狍子 3 n\n一定 900 d\n不是 900 v\n大模型 5 n\n行长 40 n\n" + extra
    src.write_text(words, encoding="utf-8")
    (tmp_path / "__init__.py").write_text("__version__ = '0.42.1'\n")
    return src

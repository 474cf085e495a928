"""The segmenter gives exactly jieba's words and tags (cut and posseg.cut, HMM off, with the same
add_word calls) without importing jieba, from a cached dictionary index that is rebuilt when
stale, damaged or missing, safely from concurrent processes."""

from __future__ import annotations

import ast
import json
import logging
import os
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

from service.adapters import wordindex
from service.adapters.segmenter import EXTRA_FREQ, EXTRA_WORDS, DictSegmenter, segmenter

ROOT = Path(__file__).resolve().parent.parent
CJK = range(0x4E00, 0x9FD6)


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


def _dictionary(tmp_path: Path, extra: str = "") -> Path:
    src = tmp_path / "dict.txt"
    src.write_bytes(wordindex.dict_path().read_bytes() + extra.encode("utf-8"))
    (tmp_path / "__init__.py").write_text("__version__ = '0.42.1'\n")
    return src


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


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_cache_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    src = _dictionary(tmp_path)
    cache = tmp_path / "cache"
    wordindex.load(cache, src)
    (target,) = cache.glob("*.idx")
    good = target.read_bytes()
    bad = {
        "truncate": good[: len(good) // 2],
        "flip": good[:-100] + bytes([good[-100] ^ 0x20]) + good[-99:],
        "empty": b"",
        "garbage": os.urandom(4096),
    }[damage]
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

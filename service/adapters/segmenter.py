"""CJK word segmentation with part-of-speech tags from jieba's bundled dictionary (no
download), so that phrase and line breaks never fall inside a Chinese word and the break costs
can tell a preposition from a noun."""

from __future__ import annotations

import logging
from functools import lru_cache

import jieba
import jieba.posseg

jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr

# Words of narration scripts about ML that the bundled dictionary lacks or splits (算/力):
# added in memory only, with the tag the break costs need.
EXTRA_WORDS = {
    "算力": "n",
    "缓存": "n",
    "显卡": "n",
    "显存": "n",
    "评分员": "n",
    "子集": "n",
    "上下文": "n",
    "工作空间": "n",
    "三件套": "n",
    "百分点": "q",
    "比特": "q",
    "前向": "n",
    "前向传播": "n",
    "反向传播": "n",
    "预训练": "vn",
    "后训练": "vn",
    "损失函数": "n",
    "过拟合": "vn",
    "欠拟合": "vn",
    "端到端": "b",
    "参数量": "n",
    "数据集": "n",
    "训练集": "n",
    "测试集": "n",
    "验证集": "n",
    "智能体": "n",
    "多模态": "b",
    "大模型": "n",
    "小模型": "n",
    "长文本": "n",
    "去重": "vn",
}
_ready = False


def _init() -> None:
    global _ready
    if not _ready:
        jieba.initialize()
        for word, tag in EXTRA_WORDS.items():
            jieba.add_word(word, freq=50000, tag=tag)
        _ready = True


@lru_cache(maxsize=8192)
def _cut(run: str) -> tuple[str, ...]:
    _init()
    # HMM off: dictionary words only, so unknown sequences stay breakable character by character.
    return tuple(jieba.cut(run, HMM=False))


@lru_cache(maxsize=8192)
def _tagged(run: str) -> tuple[tuple[str, str], ...]:
    _init()
    return tuple((p.word, p.flag) for p in jieba.posseg.cut(run, HMM=False))


def cjk_words(run: str) -> list[str]:
    """The words of a CJK run (no tags): for callers that only need word boundaries."""
    return list(_cut(run))


def tagged_words(run: str) -> list[tuple[str, str]]:
    """The words of a CJK run with their jieba part-of-speech tags (``n``, ``v``, ``p``, ...):
    the segmenter the subtitle layout and the phrase splitter use."""
    return list(_tagged(run))


def warm() -> None:
    """Load the dictionary now (about a second) rather than inside a timed task."""
    _init()

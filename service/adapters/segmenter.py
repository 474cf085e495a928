"""CJK word segmentation with jieba's bundled dictionary (no download), so that phrase and
line breaks never fall inside a Chinese word."""

from __future__ import annotations

import logging
from functools import lru_cache

import jieba

jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" chatter on stderr


@lru_cache(maxsize=8192)
def _cut(run: str) -> tuple[str, ...]:
    # HMM off: dictionary words only, so unknown sequences stay breakable character by character.
    return tuple(jieba.cut(run, HMM=False))


def cjk_words(run: str) -> list[str]:
    return list(_cut(run))


def warm() -> None:
    """Load the dictionary now (about half a second) rather than inside a timed task."""
    jieba.initialize()

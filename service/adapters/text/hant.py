"""The Converter port on OpenCC (the ``opencc`` package: the C++ library with its bundled
dictionaries). ``tw`` is ``s2twp`` (Taiwan characters and phrasing: 软件 -> 軟體,
信息 -> 資訊), ``hk`` is ``s2hk`` (Hong Kong characters, mainland words kept)."""

from __future__ import annotations

import threading

import opencc

from service.domain.options import Traditional as Variant

CONFIGS: dict[str, str] = {"tw": "s2twp", "hk": "s2hk"}


class OpenccConverter:
    """One OpenCC instance per variant, loaded on first use (~0.1 s: its dictionaries)."""

    def __init__(self) -> None:
        self._loaded: dict[str, opencc.OpenCC] = {}
        self._lock = threading.Lock()

    def convert(self, text: str, variant: Variant) -> str:
        with self._lock:
            conv = self._loaded.get(variant)
            if conv is None:
                conv = self._loaded[variant] = opencc.OpenCC(CONFIGS[variant])
        out: str = conv.convert(text)
        return out

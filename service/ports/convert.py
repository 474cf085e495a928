"""Chinese script conversion: Simplified text into a Traditional variant (an adapter wraps
OpenCC). The cues' conversion itself is pure (service/domain/subtitles/hant.py) and only
calls ``convert``."""

from __future__ import annotations

from typing import Protocol

from service.domain.options import Traditional as Variant


class Converter(Protocol):
    """Converts Simplified Chinese text into a Traditional variant. Non-Chinese text, line
    breaks and spaces pass through unchanged."""

    def convert(self, text: str, variant: Variant) -> str: ...

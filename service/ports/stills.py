"""Stills: one frame with subtitles drawn on it by libass, as the burn-in draws them."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Stills(Protocol):
    def draw(
        self, ass: str, size: tuple[int, int], width: int, video: Path | None, at: float
    ) -> bytes:
        """A PNG ``width`` pixels wide: ``ass`` (PlayRes ``size``) drawn over the frame of
        ``video`` at ``at`` seconds (scaled to ``size``), or over a neutral background of
        ``size``. Raises MediaError when ffmpeg fails or runs out of time."""
        ...

"""A style's live still (GET /v1/styles/{name}/preview.png): the sample cues it is drawn
with (two narration lines, a qualifier on the top layer, a shot's screen text), the frame a
style is shown on without a video, and the key a drawn still is cached and tagged by. Pure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from service.domain.subtitles.cues import NARRATION, OVERLAY, SCREEN, Cue

SHOWN_MS = 35_000_000  # ~9.7 h (ASS times end below 10 h): on any frame drawn
PORTRAIT, LANDSCAPE = (1080, 1920), (1920, 1080)
SAMPLES = {
    "zh": (
        ("代码测试通过以后,再做性能优化,", "评分员对轨迹排序,低排名降权。"),
        "本视频为演示样例 · 不构成任何建议",
        "第一章 · 从这里开始",
    ),
    "en": (
        ("Once the tests pass, we tune for speed,", "and the graders rank every trajectory."),
        "Demo footage · not advice of any kind",
        "Chapter one · where it starts",
    ),
}


def sample_cues(language: str) -> list[Cue]:
    """The cues a still shows: each layer the burn-in draws, at once."""
    narration, qualifier, screen = SAMPLES.get(language, SAMPLES["zh"])
    return [
        Cue(0, SHOWN_MS, narration, NARRATION),
        Cue(0, SHOWN_MS, (qualifier,), OVERLAY),
        Cue(0, SHOWN_MS, (screen,), SCREEN),
    ]


def frame_of(style: str, frame: str | None) -> tuple[int, int]:
    """The background's size without a video: the one asked for, else landscape for a style
    named for it (the bundled ``landscape``), portrait (9:16, the product's own) for others."""
    if frame is not None:
        return LANDSCAPE if frame == "landscape" else PORTRAIT
    return LANDSCAPE if "landscape" in style.lower() else PORTRAIT


@dataclass(frozen=True, slots=True)
class StillKey:
    """What a still depends on: the ASS text (style, frame, language), the picture under it
    (a job's video at a time, or none) and the width it is scaled to."""

    ass: str
    size: tuple[int, int]  # the frame the ASS is laid out for (its PlayRes)
    job: str | None
    at: float
    width: int

    @property
    def etag(self) -> str:
        h = hashlib.sha256(self.ass.encode())
        h.update(f"\0{self.job or ''}\0{self.at:.1f}\0{self.width}".encode())
        return f'"{h.hexdigest()[:32]}"'

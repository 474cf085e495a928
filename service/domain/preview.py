"""A style's live still (GET /v1/styles/{name}/preview.png): the sample cues it is drawn
with (two narration lines with a word being spoken and a keyword emphasised, a qualifier
on the top layer, a shot's screen text, a hook title), the frame a
style is shown on without a video, and the key a drawn still is cached and tagged by. Pure."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from service.domain.emphasis import alnum_ranges
from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN, Cue
from service.domain.subtitles.karaoke import TimedWord

SHOWN_MS = 35_000_000  # ~9.7 h (ASS times end below 10 h): on any frame drawn
PORTRAIT, LANDSCAPE = (1080, 1920), (1920, 1080)
SAMPLES = {
    "zh": (
        ("代码测试通过以后,再做性能优化,", "评分员对轨迹排序,低排名降权。"),
        "本视频为演示样例 · 不构成任何建议",
        "第一章 · 从这里开始",
        "别把测试通过当铁板",
    ),
    "en": (
        ("Once the tests pass, we tune for speed,", "and the graders rank every trajectory."),
        "Demo footage · not advice of any kind",
        "Chapter one · where it starts",
        "Stop trusting green tests",
    ),
}
# In the sample narration: the word being spoken (the whole time the still can show: the
# caption looks draw it) and an emphasised keyword.
SPOKEN = {"zh": "测试", "en": "tests"}
EMPHASISED = {"zh": "性能优化", "en": "speed"}


def _narration(lines: tuple[str, ...], language: str) -> Cue:
    """The sample narration: every word of it (a Latin run, or a hanzi) said before the
    still's time but the spoken one, which lasts the whole time."""
    text = "".join(lines)
    word, keyword = SPOKEN[language], EMPHASISED[language]
    words = tuple(
        TimedWord(m.start(), m.end(), m[0], 0, SHOWN_MS if m[0] == word else 0)
        for m in re.finditer(rf"{re.escape(word)}|[A-Za-z0-9]+|\w", text)
    )
    key = text.index(keyword)
    emphasis = alnum_ranges(text, [(key, key + len(keyword))], 0, len(text))
    return Cue(0, SHOWN_MS, lines, NARRATION, words=words, emphasis=emphasis)


def sample_cues(language: str) -> list[Cue]:
    """The cues a still shows: each layer the burn-in draws, at once, and the narration as
    each caption look draws it (a word being spoken, an emphasised keyword)."""
    lang = language if language in SAMPLES else "zh"
    narration, qualifier, screen, hook = SAMPLES[lang]
    return [
        _narration(narration, lang),
        Cue(0, SHOWN_MS, (qualifier,), OVERLAY),
        Cue(0, SHOWN_MS, (screen,), SCREEN),
        Cue(0, SHOWN_MS, (hook,), HOOK),
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

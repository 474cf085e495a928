"""The layers above the narration: qualifier overlays at the top, each shot's screen text (title
cards apart), and the settling that keeps every layer's cues apart in time and in order."""

from __future__ import annotations

import math
from dataclasses import replace

from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN, TITLE, Cue, Layout
from service.domain.text import reading_chars, wrap
from service.domain.units import frame_at, frames_to_ms

# Overlays use a smaller font (44 vs 64 px in ASS), so a line holds proportionally more.
OVERLAY_WIDTH = 1.4


def _wrapped(text: str, chars: int, layout: Layout, max_lines: int) -> list[str]:
    return (
        wrap(text, chars, max_lines, layout.segment, layout.language)
        or wrap(text, chars, 4, layout.segment, layout.language)
        or [" ".join(text.split())]
    )


def overlay_cues(overlays: list[tuple[str, int, int]], layout: Layout) -> list[Cue]:
    """Top cues. An overlay's text may hold several items, one per line (the accumulating
    risk card): each is wrapped on its own and they are stacked."""
    out = []
    chars = round(layout.line_chars * OVERLAY_WIDTH)
    for text, start, end in overlays:
        lines = [
            line
            for part in text.split("\n")
            if part.strip()
            for line in _wrapped(part, chars, layout, layout.max_lines)
        ]
        out.append(Cue(start, end, tuple(lines), OVERLAY))
    return out


# Shot text is larger than narration (77 vs 64 px; title cards 1.4 times that): fewer
# characters a line, up to 3 lines.
SCREEN_WIDTH = 0.85
TITLE_WIDTH = 0.6
_TITLE_SHOT = ("标题", "收尾", "片头", "片尾", "title", "end card")


def is_title_shot(name: str) -> bool:
    """Title and end cards (镜头 1 · 标题卡, 镜头 7 · 收尾卡) are shown large, mid-frame."""
    return any(k in name.lower() for k in _TITLE_SHOT)


def screen_cues(shots: list[tuple[str, str, int, int]], layout: Layout) -> list[Cue]:
    """Each shot's on-screen text (name, text, start, end) as its own layer: title cards
    mid-frame, other shots' captions under the top layer."""
    out = []
    for name, text, start, end in shots:
        if not text.strip() or end <= start:
            continue
        title = is_title_shot(name)
        chars = max(4, round(layout.line_chars * (TITLE_WIDTH if title else SCREEN_WIDTH)))
        lines = _wrapped(text, chars, layout, 3)
        out.append(Cue(start, end, tuple(lines), TITLE if title else SCREEN))
    return out


HOOK_WIDTH = 0.6  # the hook's text is larger again: fewer characters a line, 2 lines


def hook_cue(text: str, seconds: float, layout: Layout) -> Cue:
    """The hook title over the first ``seconds`` (checked at the door to fit two lines)."""
    chars = max(4, round(layout.line_chars * HOOK_WIDTH))
    lines = _wrapped(text, chars, layout, 2)
    return Cue(0, round(seconds * 1000), tuple(lines), HOOK)


def _settle_narration(cues: list[Cue], layout: Layout) -> list[Cue]:
    """In-time on the first frame of speech; out-time at the end of speech, extended up to
    0.5 s for the reading speed and to the minimum duration where there is room; a pause of
    0.5 s or less to the next cue chained to exactly ``min_gap_frames``; at most 7 s."""
    fps = layout.fps
    gap = max(1, round(layout.gap_ms * fps / 1000))
    starts = [frame_at(c.start_ms, fps) for c in cues]
    # Two cues may not share a frame: a later start moves to the frame after.
    for i in range(1, len(starts)):
        starts[i] = max(starts[i], starts[i - 1] + gap + 1)
    out: list[Cue] = []
    for i, cue in enumerate(cues):
        start = starts[i]
        speech_end = math.ceil(cue.end_ms * fps / 1000 - 1e-6)
        end = speech_end
        need = start + math.ceil(reading_chars(cue.text) / layout.max_cps * fps - 1e-6)
        if need > end:
            end = min(need, speech_end + frame_at(500, fps))
        end = max(end, start + math.ceil(layout.min_ms * fps / 1000 - 1e-6))
        if i + 1 < len(cues):
            limit = starts[i + 1] - gap
            if frames_to_ms(starts[i + 1], fps) - frames_to_ms(end, fps) <= layout.chain_ms:
                end = limit
            end = min(end, limit)
        end = min(end, start + math.floor(layout.max_ms * fps / 1000 + 1e-6))
        end = max(end, start + 1)
        out.append(replace(cue, start_ms=frames_to_ms(start, fps), end_ms=frames_to_ms(end, fps)))
    return out


def settle(cues: list[Cue], layout: Layout) -> list[Cue]:
    """Per layer: narration timed to the frame and chained (see ``_settle_narration``);
    overlays keep 2 frames between consecutive cues and are held for the minimum duration
    where the next leaves room. Returns all cues sorted by start."""
    out: list[Cue] = []
    for layer in sorted({c.layer for c in cues}):
        mine = sorted((c for c in cues if c.layer == layer), key=lambda c: c.start_ms)
        if layer == NARRATION:
            out += _settle_narration(mine, layout)
            continue
        for i, cue in enumerate(mine):
            limit = mine[i + 1].start_ms - layout.gap_ms if i + 1 < len(mine) else None
            end = max(cue.end_ms, cue.start_ms + layout.min_ms)
            if limit is not None:
                end = min(end, limit)
            end = min(end, max(cue.end_ms, cue.start_ms + layout.max_ms))
            out.append(replace(cue, end_ms=max(end, cue.start_ms + 1)))
    return sorted(out, key=lambda c: (c.start_ms, c.layer))

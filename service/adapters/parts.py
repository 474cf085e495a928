"""The picture re-encoded in time parts at once, one single-threaded ffmpeg per core, then
joined by a stream copy: where the parts are cut, how the join lists them, and the encode
under way. The argument lists themselves are built in media.py."""

from __future__ import annotations

from collections.abc import Callable
from math import ceil
from pathlib import Path

from service.adapters.process import Running, run
from service.ports import MuxRequest

MIN_PART_SECONDS = 10.0  # shorter parts cost more in start-up and seeking than they save
# A frame with burned-in text costs this much more to encode than one without (libass blends
# it, x264 codes its edges): measured 1.17x on footage-like and 1.25x on flat video here.
TEXT_COST = 0.2


def encode_parts(req: MuxRequest, parts: int) -> list[tuple[float | None, float | None]]:
    """The time parts the picture is encoded in: ``(start, end)`` in source seconds, None for
    the file's start or end. Parts cost alike (frames under the narration, which carry
    subtitles, weigh more), so they end together. Cuts fall half a frame between two frames,
    so which side a frame lands on never depends on rounding; only a constant-rate file
    starting at 0 is cut."""
    info = req.info
    parts = min(parts, int(info.duration // MIN_PART_SECONDS)) if info.constant_rate else 1
    if parts <= 1:
        return [(None, None)]
    fps, frames = info.fps, round(info.duration * info.fps)
    spans = [(ceil(a * fps), ceil(b * fps)) for a, b in req.duck_intervals] if req.burn_in else []

    def cost(m: int) -> float:  # of frames [0, m)
        return m + TEXT_COST * sum(max(0, min(m, b) - a) for a, b in spans)

    total = cost(frames)
    marks = [_first(cost, total * k / parts, frames) for k in range(1, parts)]
    cuts = [(m - 0.5) / info.fps for m in marks]
    return list(zip([None, *cuts], [*cuts, None], strict=True))


def _first(cost: Callable[[int], float], target: float, hi: int) -> int:
    """The least m in [0, hi] with cost(m) >= target (cost grows with m), by bisection."""
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if cost(mid) >= target else (mid + 1, hi)
    return lo


def parts_listing(
    files: list[Path], parts: list[tuple[float | None, float | None]], fps: float
) -> str:
    """The concat demuxer's list of the parts, each with its exact length in frames: left to
    the demuxer, a part's length comes from its container rounded to the millisecond, and the
    next part's timestamps drift by the rounding."""
    lines = []
    for f, (start, end) in zip(files, parts, strict=True):
        lines.append(f"file '{f}'")
        if end is not None:
            frames = frames_before(end, fps) - (0 if start is None else frames_before(start, fps))
            lines.append(f"duration {frames / fps:.6f}")
    return "".join(f"{line}\n" for line in lines)


def frames_before(cut: float, fps: float) -> int:
    """How many frames come before a cut made half a frame after one."""
    return round(cut * fps + 0.5)


class PartsEncoding:
    """A picture encode under way: one ffmpeg, or one per time part (single-threaded each:
    independent processes keep every core busy, where one encoder's threads wait on each
    other) and the stream-copy join that ``wait`` runs once they are all done."""

    def __init__(
        self, parts: list[Running], join: list[str] | None = None, temporary: tuple[Path, ...] = ()
    ) -> None:
        self.parts, self.join, self.temporary = parts, join, temporary

    def wait(self, timeout: float) -> None:
        try:
            for part in self.parts:
                part.wait(timeout)
            if self.join is not None:
                run(self.join, timeout)
        finally:
            self.cancel()

    def cancel(self) -> None:
        for part in self.parts:
            part.cancel()
        for path in self.temporary:
            path.unlink(missing_ok=True)

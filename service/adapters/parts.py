"""The picture re-encoded in time parts at once, one single-threaded ffmpeg per core, then
joined by a stream copy: where the parts are cut, how the join lists them, and the encode
under way, which re-cuts the work as it goes so that every core stays busy to the end. The
argument lists themselves are built in media.py."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import ceil
from pathlib import Path

from service.adapters.process import CHECK_SECONDS, Check, Running, run
from service.domain.errors import MediaError
from service.ports import MuxRequest

MIN_PART_SECONDS = 10.0  # shorter parts cost more in start-up and seeking than they save
# A part whose rest would take longer than this is stopped when a core falls idle, and its
# rest shared out: stopping, restarting and seeking cost ~0.3 s.
SPLIT_SECONDS = 1.0
POLL_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class Part:
    """Frames ``first`` up to ``end`` (exclusive) of the picture; ``end`` None: to its end,
    the frozen last frame included."""

    first: int
    end: int | None = None

    def times(self, fps: float) -> tuple[float | None, float | None]:
        """Where it is cut, in source seconds: half a frame before a frame, so which side a
        frame lands on never depends on rounding; None for the picture's start or end."""
        start = None if self.first == 0 else (self.first - 0.5) / fps
        return start, None if self.end is None else (self.end - 0.5) / fps


class Frames:
    """The frames of one request: those the file has, and those the picture will have (the
    frozen last frame repeated up to ``extend_to``). Frames cost alike: burned-in text is one
    overlay on every frame (see burn.py)."""

    def __init__(self, req: MuxRequest) -> None:
        info = req.info
        self.fps = info.fps
        self.source = round(info.duration * info.fps)
        self.total = ceil(round(req.extend_to or info.duration, 3) * info.fps - 1e-6)

    def share(self, first: int, end: int | None, parts: int) -> list[Part]:
        """Frames [first, end) in ``parts`` parts alike. Cuts stay inside the file's own
        frames (the frozen end cannot be sought into)."""
        stop = self.source if end is None else end
        cuts = {first + (stop - first) * k // parts for k in range(1, parts)}
        marks = sorted(m for m in cuts if first < m < stop)  # none past the file's end
        return [Part(a, b) for a, b in zip([first, *marks], [*marks, end], strict=True)]

    def count(self, part: Part) -> int:
        return (self.total if part.end is None else part.end) - part.first


def encode_parts(req: MuxRequest, parts: int) -> list[Part]:
    """The parts the picture is first cut in: as many as ``parts`` (one per core), alike, so
    they end together; only a constant-rate file starting at 0 is cut, and none shorter than
    MIN_PART_SECONDS."""
    info = req.info
    parts = min(parts, int(info.duration // MIN_PART_SECONDS)) if info.constant_rate else 1
    return Frames(req).share(0, None, parts) if parts > 1 else [Part(0)]


def parts_listing(done: list[tuple[Path, int]], fps: float) -> str:
    """The concat demuxer's list of the encoded parts in order, each with its exact length in
    frames: left to the demuxer, a part's length comes from its container rounded to the
    millisecond, and the next part's timestamps drift by the rounding."""
    lines = []
    for i, (f, frames) in enumerate(done):
        lines.append(f"file '{f}'")
        if i < len(done) - 1:
            lines.append(f"duration {frames / fps:.6f}")
    return "".join(f"{line}\n" for line in lines)


_FRAME = re.compile(rb"^frame=(\d+)$", re.MULTILINE)


def frames_done(progress: bytes) -> int:
    """The frames an ffmpeg has encoded, from what it writes to ``-progress``: its last
    complete report (a report being written may be cut short)."""
    counts = _FRAME.findall(progress[: progress.rfind(b"progress=") + 1])
    return int(counts[-1]) if counts else 0


@dataclass(slots=True)
class _Run:
    part: Part
    file: Path
    progress: Path  # where its ffmpeg reports the frames it has encoded
    running: Running
    started: float

    def frames(self) -> int:
        try:
            return frames_done(self.progress.read_bytes())
        except FileNotFoundError:
            return 0


class PartsEncoding:
    """A picture encode under way: one ffmpeg for the whole picture, or one single-threaded
    ffmpeg per part and core (independent processes keep every core busy, where one
    encoder's threads wait on each other), then the stream-copy join. When a part ends while
    another still has more than SPLIT_SECONDS to go, that one is stopped (ffmpeg closes its
    file at the frame it is on) and the rest of its frames shared out among it and the idle
    cores: the first cuts are an estimate, and a machine's other work slows one part more
    than another. ``launch`` starts the ffmpeg for a part (None: the whole picture) into a
    file, reporting progress to another, and names the files it made for it; those and
    ``temporary`` go when the encode ends."""

    def __init__(
        self,
        frames: Frames,
        parts: list[Part],
        launch: Callable[[Part | None, Path, Path], tuple[Running, list[Path]]],
        join: Callable[[Path], list[str]],
        output: Path,
        temporary: tuple[Path, ...] = (),
    ) -> None:
        self.frames, self.launch, self.join, self.output = frames, launch, join, output
        self.slots, self.whole = len(parts), len(parts) == 1
        self.active: list[_Run] = []
        self.done: list[tuple[int, Path, int]] = []  # first frame, file, frames
        self.made: list[Path] = list(temporary)
        self.started = 0
        for part in parts:
            self._start(part)

    def _start(self, part: Part) -> None:
        name = f"{self.output.stem}.part{self.started}"
        file, progress = (self.output.with_name(name + ext) for ext in (".mp4", ".progress"))
        if self.whole:
            file = self.output
        else:
            self.made.append(file)
        self.made.append(progress)
        self.started += 1
        running, scratch = self.launch(None if self.whole else part, file, progress)
        self.made += scratch
        self.active.append(_Run(part, file, progress, running, time.monotonic()))

    def wait(self, timeout: float, check: Check | None = None) -> None:
        """Until the picture is whole; ``check`` is called every CHECK_SECONDS meanwhile and
        may raise (its job was canceled): every ffmpeg is then killed at once."""
        deadline = time.monotonic() + timeout
        checked = 0.0
        try:
            while self.active:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise MediaError(self.active[0].running.argv, None, "timed out")
                if check is not None and time.monotonic() - checked >= CHECK_SECONDS:
                    check()
                    checked = time.monotonic()
                time.sleep(min(POLL_SECONDS, left))
                ended = [r for r in self.active if r.running.proc.poll() is not None]
                for r in ended:
                    self.active.remove(r)
                    r.running.wait(left)  # raises on a failed part
                    self._finished(r)
                if ended:
                    self._share_out(deadline)
            if self.whole:
                return
            listing = self.output.with_name(f"{self.output.stem}.parts.txt")
            self.made.append(listing)
            done = [(f, n) for _, f, n in sorted(self.done)]
            listing.write_text(parts_listing(done, self.frames.fps))
            run(self.join(listing), max(1.0, deadline - time.monotonic()), check=check)
        finally:
            self.cancel()

    def _finished(self, r: _Run) -> int:
        """Record what a part encoded (all of it, or up to where it was stopped)."""
        n = r.frames()
        if n:
            self.done.append((r.part.first, r.file, n))
        return n

    def _share_out(self, deadline: float) -> None:
        """Stop the part with the most left to do, if it is worth it, so that its rest is
        shared among the idle cores and its own."""
        idle = self.slots - len(self.active)
        if idle <= 0 or not self.active:
            return
        now = time.monotonic()
        r = max(self.active, key=lambda r: self._seconds_left(r, now))
        if self._seconds_left(r, now) < SPLIT_SECONDS:
            return
        r.running.stop(max(1.0, deadline - now))
        self.active.remove(r)
        n = self._finished(r)
        if n < self.frames.count(r.part):  # not ended on its own meanwhile
            for part in self.frames.share(r.part.first + n, r.part.end, idle + 1):
                self._start(part)

    def _seconds_left(self, r: _Run, now: float) -> float:
        done = r.frames()
        if done < self.frames.fps / 2:  # too early to tell its speed
            return 0.0
        if r.part.end is None and r.part.first + done + 2 * self.frames.fps > self.frames.source:
            return 0.0  # what is left is the frozen end, which cannot be sought into
        return (self.frames.count(r.part) - done) * (now - r.started) / done

    def cancel(self) -> None:
        for r in self.active:
            r.running.cancel()
        self.active.clear()
        for path in self.made:
            path.unlink(missing_ok=True)

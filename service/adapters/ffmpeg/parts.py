"""The picture re-encoded in time parts at once, one single-threaded ffmpeg per core, then
joined by a stream copy: where the parts are cut, how the join lists them, and the encode
under way. The argument lists themselves are built in media.py."""

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


def concat_file(path: Path) -> str:
    """A concat listing's ``file`` line: the demuxer reads a relative path from the
    listing's own folder (not the working directory), so the path is made absolute; a quote
    in it is closed, escaped and reopened (ffmpeg's quoting rules)."""
    quoted = str(path.absolute()).replace("'", "'\\''")
    return f"file '{quoted}'"


def parts_listing(done: list[tuple[Path, int]], fps: float) -> str:
    """The concat demuxer's list of the encoded parts in order, each with its exact length in
    frames: left to the demuxer, a part's length comes from its container rounded to the
    millisecond, and the next part's timestamps drift by the rounding."""
    lines = []
    for i, (f, frames) in enumerate(done):
        lines.append(concat_file(f))
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

    def frames(self) -> int:
        try:
            return frames_done(self.progress.read_bytes())
        except FileNotFoundError:
            return 0


class PartsEncoding:
    """A picture encode under way: one ffmpeg for the whole picture, or one single-threaded
    ffmpeg per part and core (independent processes keep every core busy, where one
    encoder's threads wait on each other), then the stream-copy join. The parts are cut
    where the input says (``encode_parts``) and never re-cut as they run: x264 with one
    thread makes the same bits from the same frames, so the same input and settings give a
    byte-identical file, however the machine's load slows one part against another.
    ``launch`` starts the ffmpeg for a part (None: the whole picture) into a file, reporting
    progress to another, and names the files it made for it; those and ``temporary`` go
    when the encode ends."""

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
        self.whole = len(parts) == 1
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
        self.active.append(_Run(part, file, progress, running))

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
                for r in [r for r in self.active if r.running.proc.poll() is not None]:
                    self.active.remove(r)
                    r.running.wait(left)  # raises on a failed part
                    self.done.append((r.part.first, r.file, r.frames()))
            if self.whole:
                return
            listing = self.output.with_name(f"{self.output.stem}.parts.txt")
            self.made.append(listing)
            done = [(f, n) for _, f, n in sorted(self.done)]
            listing.write_text(parts_listing(done, self.frames.fps), encoding="utf-8")
            run(self.join(listing), max(1.0, deadline - time.monotonic()), check=check)
        finally:
            self.cancel()

    def fraction(self) -> float:
        """The frames encoded so far (the parts done and those running), of the picture's."""
        done = sum(n for _, _, n in self.done) + sum(r.frames() for r in self.active)
        return min(1.0, done / max(1, self.frames.total))

    def cancel(self) -> None:
        for r in self.active:
            r.running.cancel()
        self.active.clear()
        for path in self.made:
            path.unlink(missing_ok=True)

"""A track that asks whether its job was canceled as it is read: the normalisation passes
read it (and ``poll`` it: passes.py), so a cancel stops a long mix within a quarter second.
It lives beside the passes that call it, not in the pipeline that makes it, so the reads of
a mix stay in this room."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.audio.arrays import Audio
from service.audio.stream import Source

CHECK_SECONDS = 0.25


class Checked:
    """A track that calls ``check`` (the job canceled?) at most every CHECK_SECONDS as it
    is read: a cancel stops the mix, and the picture encode running beside it, at once."""

    def __init__(self, src: Source, check: Callable[[], None]) -> None:
        self.src, self.check, self.at = src, check, time.monotonic()

    @property
    def length(self) -> int:
        return self.src.length

    def poll(self) -> None:
        """Ask (at most every CHECK_SECONDS): also called by normalisation passes that reuse
        the first pass's samples and so read nothing."""
        if time.monotonic() - self.at >= CHECK_SECONDS:
            self.check()
            self.at = time.monotonic()

    def read(self, a: int, b: int) -> Audio:
        self.poll()
        return self.src.read(a, b)

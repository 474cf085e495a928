"""A track that asks whether its job was canceled as it is read."""

from __future__ import annotations

import time

from service import audio as dsp
from service.ports import Check

CHECK_SECONDS = 0.25


class Checked:
    """A track that calls ``check`` (the job canceled?) at most every CHECK_SECONDS as it
    is read: a cancel stops the mix, and the picture encode running beside it, at once."""

    def __init__(self, src: dsp.Source, check: Check) -> None:
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

    def read(self, a: int, b: int) -> dsp.Audio:
        self.poll()
        return self.src.read(a, b)

"""A job's multipart body with recorded takes: ``take-1``, ``take-2``... (one per segment,
numbered by segment) or ``take`` (the whole script), each streamed to its place in storage
like the video, within max_take_bytes, at most max_takes of them."""

from __future__ import annotations

from collections.abc import Callable

from service.api.uploads import _Part, _Reader
from service.config import Settings
from service.domain.errors import TakeError
from service.domain.takes import is_take
from service.ports import Incoming

Receive = Callable[[str], Incoming]  # a take part's name -> where it goes


def check_take(name: str, held: int, settings: Settings) -> None:
    """A take part may come: ``name`` is a take's and its job holds fewer than max_takes
    (a job's or a batch item's: batch_uploads.py)."""
    if not is_take(name):
        raise TakeError(f"{name}: not a take part (take, or take-N for segment N)", name)
    if held >= settings.max_takes:
        raise TakeError(f"{name}: more than {settings.max_takes} takes in one job", name)


class TakeReader(_Reader):
    def __init__(
        self, files: dict[str, tuple[Incoming, int]], settings: Settings, receive: Receive
    ) -> None:
        super().__init__(files, settings.max_script_bytes)
        self.receive = receive
        self.settings = settings

    def accepts(self, name: str) -> bool:
        return super().accepts(name) or name.startswith("take")

    def attach(self, part: _Part) -> None:
        if not part.name.startswith("take"):
            super().attach(part)
            return
        check_take(part.name, len(self.upload.takes), self.settings)
        part.file = self.receive(part.name)
        self.upload.received.append(part.file)
        self.upload.takes[part.name] = part.file.path

    def file_limit(self, name: str) -> int:
        return self.settings.max_take_bytes if is_take(name) else super().file_limit(name)

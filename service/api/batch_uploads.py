"""A batch's multipart body as it streams in: many ``script`` parts (kept in memory, each
within max_script_bytes), many ``video``, ``music`` and ``take`` parts (each streamed to its
place in storage under the id of its name's group: intro.mp4, intro.mp3 and intro.take-2.wav
go where the job made of intro.md will find them), one ``options`` and one ``batch`` (JSON)
part. The whole body is held to batch_max_bytes as the bytes arrive."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fastapi import HTTPException, Request

from service.api.take_uploads import check_take
from service.api.uploads import FIELDS, _Part, _Reader, read_multipart_with
from service.config import Settings
from service.domain.batch import by_file, item_name, take_of
from service.domain.errors import TakeError
from service.domain.takes import is_take
from service.ports import Incoming

Receive = Callable[[str, str], Incoming]  # (group name, kind) -> where the part goes


@dataclass
class BatchUpload:
    scripts: list[tuple[str, bytes]] = field(default_factory=list)  # (filename, bytes)
    # filename -> (group, kind): kind is video, music, or a take's name (take-2, take)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    options: str = "{}"
    batch: str = "{}"


class _BatchReader(_Reader):
    fields = (*FIELDS, "batch", "take")
    repeatable = frozenset({"script", "video", "music", "take"})

    def __init__(self, receive: Receive, settings: Settings) -> None:
        super().__init__({}, settings.max_script_bytes)
        self.receive = receive
        self.settings = settings
        self.batch = BatchUpload()
        self.total = 0

    def attach(self, part: _Part) -> None:
        if part.name not in ("video", "music", "take"):
            return
        if not part.filename or part.filename in self.batch.files:
            what = "without a filename" if not part.filename else f"{part.filename!r} twice"
            raise HTTPException(413, f"multipart form refused: a {part.name} part {what}")
        group, kind = take_of(part.filename) if part.name == "take" else (None, part.name)
        group = group or item_name(part.filename)
        if (group, kind) in self.batch.files.values():
            raise HTTPException(413, f"multipart form refused: two {kind} parts for {group!r}")
        if part.name == "take":  # the item's takes are held as a job's are
            held = sum(g == group and is_take(k) for g, k in self.batch.files.values())
            try:
                check_take(kind, held, self.settings)
            except TakeError as exc:
                raise by_file(exc, {kind: part.filename}) from None
        part.file = self.receive(group, kind)
        self.batch.files[part.filename] = (group, kind)
        self.upload.received.append(part.file)

    def file_limit(self, name: str) -> int:
        limits = {"video": self.settings.max_video_bytes, "take": self.settings.max_take_bytes}
        return limits.get(name, self.settings.max_music_bytes)

    def shown(self, part: _Part) -> str:
        return part.filename if part.name == "take" else part.name

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        self.total += end - start
        if self.total > self.settings.batch_max_bytes:
            raise HTTPException(
                413,
                f"the batch is over the limit of {self.settings.batch_max_bytes} bytes "
                "(batch_max_bytes)",
            )
        super().on_part_data(data, start, end)

    def on_part_end(self) -> None:
        part = self.part
        if part.name == "script":
            self.batch.scripts.append((part.filename, bytes(part.data)))
        elif part.name in ("options", "batch"):
            setattr(self.batch, part.name, part.data.decode("utf-8", errors="replace") or "{}")
        self.part = _Part()


async def read_batch_multipart(
    request: Request, settings: Settings, receive: Receive
) -> tuple[BatchUpload, str]:
    """The batch's parts and the body's hash; 413 past a limit. ``receive`` keeps what it
    hands out: the caller aborts it all (and drops every group's storage) when no batch is
    made."""
    reader = _BatchReader(receive, settings)
    await read_multipart_with(request, reader, require_script=False)
    return reader.batch, reader.upload.digest.hexdigest()

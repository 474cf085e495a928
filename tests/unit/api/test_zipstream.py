"""artifacts.zip is written as it is read: entry by entry, each in pieces, never whole."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from service.api.zipstream import zip_stream
from service.ports import Artifact


class Blob:
    def __init__(self, name: str, data: bytes, opened: list[str]) -> None:
        self.name, self.data, self.opened = name, data, opened
        self.size, self.etag, self.modified = len(data), '"x"', 1.7e9
        self.path: Path | None = None

    def open(self, start: int = 0) -> BinaryIO:
        self.opened.append(self.name)
        return io.BytesIO(self.data[start:])

    def read(self, start: int, end: int) -> bytes:
        return self.data[start:end]

    def url(self, seconds: int) -> str | None:
        return None


def test_the_archive_streams_in_pieces_and_reads_back_whole() -> None:
    opened: list[str] = []
    big = bytes(range(256)) * (5 * 4096)  # 5 MiB
    blobs = {"a/video.mp4": big, "b/subtitles.srt": b"1\n00:00:00,000 --> 00:00:01,000\nhi\n"}

    def entries() -> Iterator[tuple[str, Artifact]]:
        for name, data in blobs.items():
            yield name, Blob(name, data, opened)

    chunks = zip_stream(entries())
    first = next(chunks)
    assert opened == ["a/video.mp4"]  # the next entry is not read before it is needed
    rest = list(chunks)
    assert max(map(len, [first, *rest])) < 2.1 * (1 << 20)  # never one whole entry
    archive = zipfile.ZipFile(io.BytesIO(first + b"".join(rest)))
    assert archive.namelist() == list(blobs) and archive.testzip() is None
    assert all(archive.read(n) == d for n, d in blobs.items())
    assert all(i.compress_type == zipfile.ZIP_STORED for i in archive.infolist())

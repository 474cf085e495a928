"""A zip archive written as it is read: entries stored (the artifacts are compressed media
already), each read from its Artifact stream in pieces and handed on, so neither memory nor
disk ever holds the archive, or even one whole entry."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterable, Iterator

from service.ports import Artifact

CHUNK = 1 << 20


class _Sink(io.RawIOBase):
    """Where zipfile writes: an unseekable stream (so zipfile writes data descriptors after
    each entry instead of seeking back) whose bytes are taken away as they come."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.offset = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.chunks.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def take(self) -> bytes:
        out = b"".join(self.chunks)
        self.chunks.clear()
        return out


def zip_stream(entries: Iterable[tuple[str, Artifact]]) -> Iterator[bytes]:
    """The archive's bytes, entry by entry (``entries`` is read lazily, as the client reads)."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, artifact in entries:
            info = zipfile.ZipInfo(name, time.gmtime(artifact.modified)[:6])
            info.compress_type = zipfile.ZIP_STORED
            info.file_size = artifact.size
            with artifact.open() as src, zf.open(info, "w", force_zip64=True) as dst:
                while chunk := src.read(CHUNK):
                    dst.write(chunk)
                    if sum(map(len, sink.chunks)) >= CHUNK:
                        yield sink.take()
            yield sink.take()
    yield sink.take()

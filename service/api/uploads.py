"""Multipart uploads parsed as they stream in: the video and the music go straight to their
places in storage (no spooling to a temp file first; an object store takes them part by part,
so memory holds one part at most), small fields stay in memory, every limit is checked as the
bytes arrive."""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

from service.domain.errors import InputError, InsufficientStorage
from service.ports import Incoming

if TYPE_CHECKING:  # python_multipart declares its callbacks for type checkers only
    from python_multipart.multipart import MultipartCallbacks

FIELDS = ("script", "video", "music", "options")


@dataclass
class Upload:
    script: bytes = b""
    script_name: str = ""
    options: str = "{}"
    video: Path | None = None  # a local copy to check (ffprobe) at the door
    music: Path | None = None
    takes: dict[str, Path] = field(default_factory=dict)  # take-N / take -> local copy
    digest: Any = field(default_factory=hashlib.sha256)  # of everything, for Idempotency-Key
    received: list[Incoming] = field(default_factory=list)  # the file parts that came


class _Part:
    def __init__(self) -> None:
        self.headers: dict[bytes, bytes] = {}
        self.name = ""
        self.filename = ""
        self.data = bytearray()
        self.size = 0
        self.file: Incoming | None = None


class _Reader:
    """multipart's callbacks: each part's headers, then its bytes to memory or to the file."""

    fields: tuple[str, ...] = FIELDS
    repeatable: frozenset[str] = frozenset()  # fields that may come more than once

    def __init__(self, files: dict[str, tuple[Incoming, int]], script_limit: int) -> None:
        self.files = files  # file part -> (where it goes, its size limit)
        self.script_limit = script_limit
        self.upload = Upload()
        self.part = _Part()
        self.seen: set[str] = set()
        self.header_field = bytearray()
        self.header_value = bytearray()

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_header_field": lambda d, a, b: self.header_field.extend(d[a:b]),
            "on_header_value": lambda d, a, b: self.header_value.extend(d[a:b]),
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    def on_header_end(self) -> None:
        self.part.headers[bytes(self.header_field).lower()] = bytes(self.header_value)
        self.header_field.clear()
        self.header_value.clear()

    def on_headers_finished(self) -> None:
        part = self.part
        _, disp = parse_options_header(part.headers.get(b"content-disposition", b""))
        part.name = disp.get(b"name", b"").decode(errors="replace")
        part.filename = disp.get(b"filename", b"").decode(errors="replace")
        repeated = part.name in self.seen and part.name not in self.repeatable
        if not self.accepts(part.name) or repeated:
            raise HTTPException(
                413, f"multipart form refused: unexpected or repeated field {part.name!r}"
            )
        self.seen.add(part.name)
        self.attach(part)

    def accepts(self, name: str) -> bool:
        return name in self.fields

    def attach(self, part: _Part) -> None:
        """Give a file part its place to stream to."""
        if part.name in self.files:
            part.file = self.files[part.name][0]
            self.upload.received.append(part.file)
            setattr(self.upload, part.name, part.file.path)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        part, chunk = self.part, data[start:end]
        part.size += len(chunk)
        self.upload.digest.update(chunk)
        if part.file is not None:
            limit = self.file_limit(part.name)
            if part.size > limit:
                raise HTTPException(413, f"{self.shown(part)} is over the limit of {limit} bytes")
            part.file.write(chunk)
            return
        limit = self.script_limit if part.name == "script" else 65536
        if part.size > limit:
            raise HTTPException(413, f"{part.name} is over the limit of {limit} bytes")
        part.data.extend(chunk)

    def file_limit(self, name: str) -> int:
        return self.files[name][1]

    def shown(self, part: _Part) -> str:
        """How a 413 names a file part over its limit."""
        return part.name

    def on_part_end(self) -> None:
        part = self.part
        if part.file is not None:
            pass  # committed once the whole body is in
        elif part.name == "script":
            self.upload.script, self.upload.script_name = bytes(part.data), part.filename
        elif part.name == "options":
            self.upload.options = part.data.decode("utf-8", errors="replace") or "{}"
        self.part = _Part()

    def pending(self) -> list[Incoming]:
        """File parts with a whole store part buffered, to send before reading on."""
        return [f for f in self.upload.received if f.pending()]


async def read_multipart(
    request: Request,
    files: dict[str, tuple[Incoming, int]],
    script_limit: int,
    reader: _Reader | None = None,
) -> Upload:
    """Parse ``script``, ``options`` and the file parts (``video``, ``music``: each streamed
    to its place in ``files`` within its limit, and committed there once the body is whole);
    413 past a limit or for extra fields. The caller aborts and closes ``files``. ``reader``
    (made on ``files``) takes more kinds of part (takes.py)."""
    reader = reader or _Reader(files, script_limit)
    await read_multipart_with(request, reader)
    return reader.upload


async def read_multipart_with(
    request: Request, reader: _Reader, require_script: bool = True
) -> None:
    """Feed the body to ``reader`` (its callbacks keep what it wants), sending full store
    parts as they fill and committing every file part once the body is whole."""
    _, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if not boundary or len(boundary) > 70:  # RFC 2046: 1 to 70 characters
        raise InputError("multipart body without a valid boundary (1 to 70 characters)")
    parser = MultipartParser(boundary, reader.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
            for incoming in reader.pending():  # a store part is full: send it (blocking)
                await run_in_threadpool(incoming.flush)
        parser.finalize()
        if require_script and "script" not in reader.seen:
            raise InputError("multipart field 'script' is required")
        for incoming in reader.upload.received:
            await run_in_threadpool(incoming.commit)
    except FormParserError as exc:
        raise InputError(f"the multipart body is malformed: {exc}") from None
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise InsufficientStorage(
            f"no room to store the {reader.part.name or 'upload'} on the server "
            f"({os.strerror(exc.errno)}); nothing was kept, try again later"
        ) from None

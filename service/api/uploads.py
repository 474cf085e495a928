"""Multipart uploads parsed as they stream in: the video goes straight to its place in
storage (no spooling to a temp file first), small fields stay in memory, every limit is
checked as the bytes arrive."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from fastapi import HTTPException, Request
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

from service.domain.errors import InputError

FIELDS = ("script", "video", "options")


@dataclass
class Upload:
    script: bytes = b""
    script_name: str = ""
    options: str = "{}"
    video: Path | None = None
    digest: Any = field(default_factory=hashlib.sha256)  # of everything, for Idempotency-Key


class _Part:
    def __init__(self) -> None:
        self.headers: dict[bytes, bytes] = {}
        self.name = ""
        self.filename = ""
        self.data = bytearray()
        self.size = 0
        self.file: BinaryIO | None = None


async def read_multipart(
    request: Request, video_dest: Path, script_limit: int, video_limit: int
) -> Upload:
    """Parse ``script``, ``video`` and ``options``; 413 past a limit or for extra fields."""
    _, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if not boundary or len(boundary) > 70:  # RFC 2046: 1 to 70 characters
        raise InputError("multipart body without a valid boundary (1 to 70 characters)")
    upload = Upload()
    part = _Part()
    seen: set[str] = set()
    header_field = bytearray()
    header_value = bytearray()

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header_field.extend(data[start:end])

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header_value.extend(data[start:end])

    def on_header_end() -> None:
        part.headers[bytes(header_field).lower()] = bytes(header_value)
        header_field.clear()
        header_value.clear()

    def on_headers_finished() -> None:
        _, disp = parse_options_header(part.headers.get(b"content-disposition", b""))
        part.name = disp.get(b"name", b"").decode(errors="replace")
        part.filename = disp.get(b"filename", b"").decode(errors="replace")
        if part.name not in FIELDS or part.name in seen:
            raise HTTPException(
                413, f"multipart form refused: unexpected or repeated field {part.name!r}"
            )
        seen.add(part.name)
        if part.name == "video":
            video_dest.parent.mkdir(parents=True, exist_ok=True)
            part.file = video_dest.open("wb")
            upload.video = video_dest

    def on_part_data(data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        part.size += len(chunk)
        upload.digest.update(chunk)
        if part.file is not None:
            if part.size > video_limit:
                raise HTTPException(413, f"video is over the limit of {video_limit} bytes")
            part.file.write(chunk)
            return
        limit = script_limit if part.name == "script" else 65536
        if part.size > limit:
            raise HTTPException(413, f"{part.name} is over the limit of {limit} bytes")
        part.data.extend(chunk)

    def on_part_end() -> None:
        nonlocal part
        if part.file is not None:
            part.file.close()
        elif part.name == "script":
            upload.script, upload.script_name = bytes(part.data), part.filename
        elif part.name == "options":
            upload.options = part.data.decode("utf-8", errors="replace") or "{}"
        part = _Part()

    parser = MultipartParser(
        boundary,
        {
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        },
    )
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except FormParserError as exc:
        raise InputError(f"the multipart body is malformed: {exc}") from None
    finally:
        if part.file is not None and not part.file.closed:
            part.file.close()
    if "script" not in seen:
        raise InputError("multipart field 'script' is required")
    return upload

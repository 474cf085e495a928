"""A job request's body -> (spec, options, video, body hash): JSON job spec or multipart
fields, read within the limits, parsed with errors that name the problem."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import HTTPException, Request
from pydantic import ValidationError

from service.api.take_uploads import Receive, TakeReader
from service.api.uploads import Upload, read_multipart
from service.config import Settings
from service.domain.errors import InputError
from service.domain.options import options_error
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.wire import JsonObject
from service.ports import Incoming


@dataclass(frozen=True, slots=True)
class JobRequest:
    """A parsed job request."""

    spec: JobSpec
    options: RenderOptions
    video: Path | None
    music: Path | None
    digest: str  # of the whole body, for Idempotency-Key
    takes: dict[str, Path] = field(default_factory=dict)  # take-N / take -> local copy


async def read_body(
    request: Request,
    settings: Settings,
    video: Incoming,
    music: Incoming,
    takes: Receive | None = None,
) -> bytes | Upload:
    """The raw body, never more than the limits: multipart parts stream to their place in
    storage (``video``, ``music``, and each take where ``takes`` puts it), a JSON spec is
    read up to max_script_bytes."""
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        files = {
            "video": (video, settings.max_video_bytes),
            "music": (music, settings.max_music_bytes),
        }
        reader = TakeReader(files, settings, takes) if takes is not None else None
        return await read_multipart(request, files, settings.max_script_bytes, reader)
    raw = bytearray()
    async for chunk in request.stream():  # never buffer more than the limit
        raw += chunk
        if len(raw) > settings.max_script_bytes:
            raise HTTPException(
                413, f"job spec is over the limit of {settings.max_script_bytes} bytes"
            )
    return bytes(raw)


def parse_body(body: bytes | Upload) -> JobRequest:
    """Parse what ``read_body`` read (blocking: run it in a worker thread)."""
    try:
        if isinstance(body, Upload):
            try:
                text = body.script.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError("the script is not UTF-8 text") from None
            spec = parse_script(text, body.script_name)
            opts = options(body.options)
            parsed = JobRequest(
                spec, opts, body.video, body.music, body.digest.hexdigest(), dict(body.takes)
            )
        else:
            data = json_object(body)
            opts = options(json.dumps(data.pop("options", {})))
            digest = hashlib.sha256(body).hexdigest()
            parsed = JobRequest(spec_from_data(data), opts, None, None, digest)
        check_unicode(parsed.spec)
    except RecursionError:
        raise InputError("the job spec is nested too deeply") from None
    return parsed


def json_object(body: bytes) -> JsonObject:
    """The body as a JSON object: its wire format, validated by the caller (a spec, a batch)."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError("the body must be a JSON object (a job spec)")
    return data


def check_unicode(spec: JobSpec) -> None:
    """JSON may carry lone surrogates (\\ud800) that no UTF-8 store can hold."""
    try:
        spec.model_dump_json().encode("utf-8")
    except (UnicodeEncodeError, ValueError) as exc:
        raise InputError(
            "the job spec holds text that is not valid Unicode (a lone surrogate such as \\ud800)"
        ) from exc


def options(raw: str) -> RenderOptions:
    try:
        return RenderOptions.model_validate_json(raw)
    except ValidationError as exc:
        raise options_error(exc.errors()) from None

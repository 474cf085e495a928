"""OpenAI's speech endpoint: ``POST /v1/audio/speech`` answers the audio as it is encoded
(the first sentence is sent while the next is spoken), ``/with-timestamps`` the whole audio
in base64 with its character and word times (ElevenLabs' field names). Errors are OpenAI's
shape, ``{"error": {"message", "type", "param", "code"}}``, which its client raises as
``openai.BadRequestError`` and the like (docs/guides/openai-speech.md)."""

from __future__ import annotations

import base64
import itertools
import json
import math
from collections.abc import Iterator
from typing import TypedDict

import numpy as np
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse

from service.domain.openai_speech import (
    MEDIA_TYPES,
    SpeechAsk,
    SpeechError,
    TimedWord,
    character_times,
    read_speech,
)
from service.jobs.keys import KeyStore
from service.jobs.speech import Cast, Said, SpeechDesk
from service.ports import StreamEncoder

router = APIRouter()
AUDIO = {"content": {t: {} for t in sorted(set(MEDIA_TYPES.values()))}, "description": "audio"}
ERROR = {"description": 'OpenAI\'s error shape: {"error": {"message", "type", "param", "code"}}'}
OPENAPI_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["model", "input", "voice"],
                    "properties": {
                        "model": {"type": "string", "example": "kokoro"},
                        "input": {"type": "string", "maxLength": 4096},
                        "voice": {"type": "string", "example": "zf_xiaoxiao"},
                        "response_format": {"type": "string", "enum": list(MEDIA_TYPES)},
                        "speed": {"type": "number", "minimum": 0.25, "maximum": 4.0},
                        "instructions": {"type": "string", "description": "not applied"},
                    },
                }
            }
        },
    }
}


def tenant(request: Request) -> str:
    """The caller's tenant from ``Authorization: Bearer <key>`` (what OpenAI's client sends).
    Where keys are not required, a key this server does not know is the "local" tenant: the
    client insists on sending one."""
    keys: KeyStore = request.app.state.keys
    scheme, _, key = (request.headers.get("authorization") or "").partition(" ")
    found = keys.tenant(key.strip()) if scheme.lower() == "bearer" and key.strip() else None
    if found:
        return found
    if not request.app.state.settings.keys_required:
        return "local"
    said = "an API key is required" if not key.strip() else "invalid API key"
    raise SpeechError(
        f"{said} (Authorization: Bearer <key>; narrate keys create)",
        None,
        "invalid_api_key",
        401,
    )


async def _ask(request: Request) -> tuple[str, SpeechAsk, Cast, SpeechDesk]:
    """Who asks, the checked request and its cast, admitted against the tenant's quota."""
    who = tenant(request)
    try:
        body = json.loads(await _body(request))
    except (ValueError, UnicodeDecodeError):
        raise SpeechError("the request body is not JSON", None, "invalid_json") from None
    desk: SpeechDesk = request.app.state.speech
    ask = read_speech(body, request.app.state.settings.speech_max_chars)
    cast = desk.prepare(who, ask)
    desk.admit(who)
    return who, ask, cast, desk


async def _body(request: Request) -> bytes:
    """The body, never more than an input of the longest allowed (4 UTF-8 bytes a character,
    JSON escapes aside) and its fields: the app's own body limit is sized for videos."""
    limit = 6 * request.app.state.settings.speech_max_chars + (64 << 10)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise SpeechError(
                f"the request body is over {limit} bytes; 'input' may hold at most "
                f"{request.app.state.settings.speech_max_chars} characters",
                "input",
                "request_too_large",
                413,
            )
    return bytes(raw)


def _said(desk: SpeechDesk, who: str, ask: SpeechAsk, cast: Cast) -> Iterator[Said]:
    with desk.slot(who):
        yield from desk.speak(ask, cast)


def pcm16(audio: np.ndarray) -> bytes:
    return bytes((np.clip(audio, -1.0, 1.0) * 32767).astype("<i2").tobytes())


def _headers(first: Said, ask: SpeechAsk) -> dict[str, str]:
    return {
        "X-Narrate-Engine": first.engine,
        "X-Narrate-Voice": first.voice,
        "X-Narrate-Speed": f"{ask.speed:g}",
        "X-Narrate-Instructions": "ignored" if ask.instructions else "none",
        "Cache-Control": "no-store",
    }


def _error(exc: SpeechError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
    if exc.status == 429:
        headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    return JSONResponse(exc.body(), exc.status, headers=headers)


@router.post(
    "/v1/audio/speech",
    response_class=Response,
    responses={200: AUDIO, 400: ERROR, 401: ERROR, 413: ERROR, 429: ERROR},
    openapi_extra=OPENAPI_BODY,
    tags=["speech"],
)
async def speech(request: Request) -> Response:
    """Speak ``input`` (OpenAI's request: ``model`` an engine or ``auto``, ``voice`` a
    catalog voice or one of OpenAI's names, ``response_format``, ``speed``); the audio is
    streamed as it is encoded. ``X-Narrate-Engine``/``-Voice`` say who spoke,
    ``X-Narrate-Speed`` the speed used, ``X-Narrate-Instructions`` that instructions are
    not applied."""
    try:
        who, ask, cast, desk = await _ask(request)
        said = _said(desk, who, ask, cast)
        first = await run_in_threadpool(next, said)  # errors of the first sentence: JSON
    except SpeechError as exc:
        return _error(exc)
    encoder: StreamEncoder = request.app.state.speech_encoder
    pcm = (pcm16(s.audio) for s in itertools.chain([first], said))
    return StreamingResponse(
        encoder.stream(pcm, ask.response_format, desk.rate),
        media_type=MEDIA_TYPES[ask.response_format],
        headers=_headers(first, ask),
    )


@router.post(
    "/v1/audio/speech/with-timestamps",
    responses={400: ERROR, 401: ERROR, 413: ERROR, 429: ERROR},
    openapi_extra=OPENAPI_BODY,
    tags=["speech"],
)
async def speech_with_timestamps(request: Request) -> Response:
    """The same request; the answer is JSON: ``audio_base64`` (the whole audio in
    ``response_format``), ``alignment`` in ElevenLabs' names (``characters``,
    ``character_start_times_seconds``, ``character_end_times_seconds``) and ``words``
    (``word``, ``start``, ``end`` in seconds), from the engine's word boundaries."""
    try:
        who, ask, cast, desk = await _ask(request)
        spoken = await run_in_threadpool(lambda: list(_said(desk, who, ask, cast)))
    except SpeechError as exc:
        return _error(exc)
    encoder: StreamEncoder = request.app.state.speech_encoder
    audio = await run_in_threadpool(
        lambda: b"".join(
            encoder.stream(iter([pcm16(s.audio) for s in spoken]), ask.response_format, desk.rate)
        )
    )
    return JSONResponse(
        timestamps(ask.text, spoken, desk.rate, audio), headers=_headers(spoken[0], ask)
    )


class Alignment(TypedDict):
    characters: list[str]
    character_start_times_seconds: list[float]
    character_end_times_seconds: list[float]


class SaidWord(TypedDict):
    word: str
    start: float
    end: float


class Timestamps(TypedDict):
    """The with-timestamps body (ElevenLabs' shape, a wire format of its own)."""

    audio_base64: str
    alignment: Alignment
    words: list[SaidWord]


def timestamps(text: str, spoken: list[Said], rate: int, audio: bytes) -> Timestamps:
    """The response body: each sentence's words moved to where it starts in the audio."""
    words: list[TimedWord] = []
    at = 0.0
    for s in spoken:
        words += [TimedWord(w.start, w.end, w.start_s + at, w.end_s + at) for w in s.words]
        at += len(s.audio) / rate
    starts, ends = character_times(text, words)
    return {
        "audio_base64": base64.b64encode(audio).decode(),
        "alignment": {
            "characters": list(text),
            "character_start_times_seconds": starts,
            "character_end_times_seconds": ends,
        },
        "words": [
            {"word": text[w.start : w.end], "start": round(w.start_s, 3), "end": round(w.end_s, 3)}
            for w in words
        ],
    }

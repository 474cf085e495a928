"""Audition a voice before a render: ``GET /v1/voices/{id}/sample`` speaks a short sentence
in that voice, through the same engines, TTS cache and fallback a job's segment uses
(``Samples.speak``, service/jobs/samples.py)."""

from __future__ import annotations

import hashlib
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from service.api.deps import Jobs, Tenant
from service.api.views import ERRORS
from service.jobs.samples import Sample, Samples, UnknownVoice

router = APIRouter()
MAX_SAMPLE_CHARS = 60  # a sentence, not a script: an audition is never a free render


def samples(service: Jobs) -> Samples:
    return Samples(service)


@router.get(
    "/v1/voices/{voice_id}/sample",
    response_class=Response,
    responses={**ERRORS, 200: {"content": {"audio/wav": {}}, "description": "WAV"}},
    tags=["voices"],
)
async def sample(
    voice_id: str,
    request: Request,
    who: Tenant,
    auditions: Annotated[Samples, Depends(samples)],
    text: str = Query("", max_length=MAX_SAMPLE_CHARS, description="default: a sample line"),
    rate: str = Query("", max_length=8, description="as a segment's rate, e.g. +10%"),
    pitch: str = Query("", max_length=8, description="as a segment's pitch, e.g. -2Hz"),
) -> Response:
    """A mono WAV of ``text`` (at most 60 characters; default a sample line in the voice's
    language) in voice ``voice_id`` at ``rate`` and ``pitch``. An edge voice falls back to
    the offline voice as a job's would; the headers say which engine and voice spoke
    (``X-Narrate-Engine``, ``X-Narrate-Voice``) and whether the TTS cache answered."""
    etag = (
        '"' + hashlib.sha256(f"{voice_id}\0{text}\0{rate}\0{pitch}".encode()).hexdigest()[:32] + '"'
    )
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    try:
        said: Sample = await run_in_threadpool(auditions.speak, voice_id, text, rate, pitch, who)
    except UnknownVoice as exc:
        raise HTTPException(404, str(exc)) from None
    return Response(
        said.wav,
        media_type="audio/wav",
        headers={
            "ETag": etag,
            "Cache-Control": "private, max-age=86400",
            "Content-Disposition": f'inline; filename="sample-{said.voice}.wav"',
            "X-Narrate-Engine": said.engine,
            "X-Narrate-Voice": said.voice,
            "X-Narrate-Cached": "1" if said.cached else "0",
        },
    )

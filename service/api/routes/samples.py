"""Audition a voice before a render: ``GET /v1/voices/{id}/sample`` speaks a short sentence
in that voice, through the same engines, TTS cache and fallback a job's segment uses."""

from __future__ import annotations

import hashlib

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from service.api.deps import Jobs, Tenant
from service.api.views import ERRORS
from service.audio.wav import wav_bytes
from service.domain.fields import rate_multiplier
from service.domain.notices import Notice
from service.domain.spec import RenderOptions, spec_from_data
from service.jobs import JobService

router = APIRouter()
MAX_SAMPLE_CHARS = 60  # a sentence, not a script: an audition is never a free render
SAMPLE_TEXT = {
    "zh": "你好,这是这个声音的试听:语速、音调和停顿都和正式渲染一样。",
    "en": "Hello, this is how this voice sounds in a render.",
}


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
    service: Jobs,
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
    engine, voice, cached, wav = await run_in_threadpool(
        _speak, service, voice_id, text, rate, pitch, who
    )
    return Response(
        wav,
        media_type="audio/wav",
        headers={
            "ETag": etag,
            "Cache-Control": "private, max-age=86400",
            "Content-Disposition": f'inline; filename="sample-{voice}.wav"',
            "X-Narrate-Engine": engine,
            "X-Narrate-Voice": voice,
            "X-Narrate-Cached": "1" if cached else "0",
        },
    )


def _speak(
    service: JobService, voice_id: str, text: str, rate: str, pitch: str, tenant: str
) -> tuple[str, str, bool, bytes]:
    pipeline = service.pipeline
    known = {v.id: v for v in pipeline.catalog.voices}
    if voice_id not in known:
        raise HTTPException(404, f"no voice {voice_id!r}: GET /v1/voices lists them")
    voice = known[voice_id]
    language = "en" if voice.language.startswith("en") else "zh"
    segment: dict[str, object] = {
        "text": text.strip() or SAMPLE_TEXT.get(language, SAMPLE_TEXT["en"]),
        "seconds": 60,
        "voice": voice_id,
    }
    if rate:
        segment["rate"] = rate
    if pitch:
        segment["pitch"] = pitch
    spec = spec_from_data({"language": language, "segments": [segment]})  # rate, pitch checked
    engine = "auto" if voice.engine == "edge" else voice.engine
    plan = pipeline.plan(spec, RenderOptions.model_validate({"engine": engine}))
    renderer = pipeline.segments
    speaker = renderer.spoken_segment(plan, 0)
    if text.strip():  # the tenant's own words: its own cache entry (the sample line: all's)
        speaker.cache_scope = tenant
    warnings: list[Notice] = []
    spoke, said_by, speech = renderer.voicing.speak(
        pipeline.catalog.casting(plan.voices[0]),
        speaker,
        rate_multiplier(spec.segments[0].rate),
        warnings,
        {},
    )
    return spoke, said_by, speech.cached, wav_bytes(speech.audio, speech.rate)

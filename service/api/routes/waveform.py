"""``GET /v1/jobs/{id}/waveform``: the narration's peaks for the studio's timeline, min and
max per 10 ms, computed once per job from narration.wav and kept in the fleet's shared
cache (a second read, on any API process, is a cache hit)."""

from __future__ import annotations

import hashlib
import io
import json
import wave

import numpy as np
from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from service.api.deps import Jobs, OwnedJob
from service.api.routes.studio import data_offset
from service.api.views import ERRORS
from service.domain.job import Job
from service.jobs import JobService
from service.ports import Artifact

router = APIRouter()
BIN_SECONDS = 0.01
SCALE = 1000  # peaks as integers in [-SCALE, SCALE]: a small, exact JSON
CHUNK_SECONDS = 30  # read the WAV this much at a time: memory does not grow with the job
VERSION = 1


@router.get("/v1/jobs/{job_id}/waveform", responses=ERRORS, tags=["studio"])
async def waveform(job: OwnedJob, service: Jobs) -> Response:
    """``{"bin_seconds": 0.01, "scale": 1000, "duration", "min": [...], "max": [...]}``:
    the narration's lowest and highest sample in each 10 ms, as integers of ``scale``."""
    body = await run_in_threadpool(_peaks_json, service, job)
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})


def _peaks_json(service: JobService, job: Job) -> bytes:
    wav = service.artifact(job, "narration.wav")
    if wav is None:
        raise HTTPException(404, "the job has no narration yet")
    name = (
        "waveform-"
        + hashlib.sha256(f"{VERSION}\0{job.tenant}\0{job.id}\0{wav.etag}".encode()).hexdigest()
    )
    cache = service.artifacts.cache()
    cached = cache.get(name)
    if cached is not None:
        return cached
    body = json.dumps(peaks(wav), separators=(",", ":")).encode()
    cache.put(name, body)
    return body


def peaks(wav: Artifact) -> dict[str, object]:
    """Min and max of each 10 ms of a 16-bit PCM WAV artifact (the first channel)."""
    head = wav.read(0, min(wav.size, 4096))
    with wave.open(io.BytesIO(head), "rb") as src:
        rate, channels, width = src.getframerate(), src.getnchannels(), src.getsampwidth()
        total = src.getnframes()
    if width != 2:
        raise HTTPException(500, "narration.wav is not 16-bit PCM")
    start = data_offset(head)
    step = max(1, round(rate * BIN_SECONDS))
    lows: list[int] = []
    highs: list[int] = []
    frame = channels * width
    chunk = step * round(CHUNK_SECONDS / BIN_SECONDS)
    for first in range(0, total, chunk):
        last = min(total, first + chunk)
        raw = wav.read(start + first * frame, start + last * frame)
        x = np.frombuffer(raw[: len(raw) // frame * frame], dtype="<i2")[::channels]
        if not len(x):
            break
        bins = -(-len(x) // step)
        padded = np.pad(x.astype(np.int32), (0, bins * step - len(x)), mode="edge")
        padded = padded.reshape(bins, step)
        lows += np.round(padded.min(axis=1) * SCALE / 32768).astype(int).tolist()
        highs += np.round(padded.max(axis=1) * SCALE / 32768).astype(int).tolist()
    return {
        "bin_seconds": BIN_SECONDS,
        "scale": SCALE,
        "duration": round(total / rate, 3),
        "min": lows,
        "max": highs,
    }

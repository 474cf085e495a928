"""The studio: one page at ``/`` (static HTML/JS/CSS, no build step, works offline) and the
few JSON endpoints it needs beyond the job API: parse a script without creating a job, read
a job's source (to edit it), hear one segment, and re-render a job with fixes.

Every job route takes the job through ``OwnedJob``: another tenant's job does not exist for you."""

from __future__ import annotations

import hashlib
import io
import json
import wave
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from service.api.deps import Jobs, OwnedJob, Tenant
from service.api.schemas import Created, Links
from service.api.views import ERRORS
from service.domain.errors import InputError
from service.domain.job import Job
from service.domain.notices import Notice
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.timeline import pace_checks, place_segments, slots_ms
from service.jobs import JobService
from service.jobs import rerender as rerendering
from service.ports import Artifact

STATIC = Path(__file__).parent.parent / "static"
# The page's files: its ES modules (every *.js beside index.html, each a view or a helper the
# views import) and its stylesheet; no other name is served.
FILES = {
    **{p.name: "text/javascript; charset=utf-8" for p in sorted(STATIC.glob("*.js"))},
    "studio.css": "text/css; charset=utf-8",
}
MAX_FIELD = 1 << 20  # a script field, in characters (the script body limit is 1 MiB too)


class ParseRequest(BaseModel):
    script: str = Field(max_length=MAX_FIELD, description="the script: Markdown or JSON")
    name: str = Field("", max_length=200, description="its file name (.json means JSON)")
    options: RenderOptions = RenderOptions()


class ParsedSegment(BaseModel):
    index: int
    label: str | None
    text: str
    seconds: float
    syllables: float
    pace: float  # syllables/s the text needs in its seconds
    max_pace: float
    overflows: bool
    voice: str | None = None


class Parsed(BaseModel):
    spec: dict[str, Any]
    segments: list[ParsedSegment]
    duration: float
    warnings: list[Notice]


class Source(BaseModel):
    id: str
    spec: dict[str, Any]
    options: dict[str, Any]
    has_video: bool
    parent: str | None


class Rerender(BaseModel):
    spec: dict[str, Any] = Field(description="the edited job spec (JobSpec)")
    options: RenderOptions | None = Field(None, description="default: the parent's options")


router = APIRouter()
PAGE = (STATIC / "index.html").read_text(encoding="utf-8")


@router.get("/", include_in_schema=False)
def index() -> HTMLResponse:
    return HTMLResponse(PAGE, headers={"Cache-Control": "no-cache"})


@router.get("/studio/{name}", include_in_schema=False)
def static(name: str, request: Request) -> Response:
    if name not in FILES:
        raise HTTPException(404, "no such file")
    body = (STATIC / name).read_bytes()  # tens of kB: read and hashed per request, in ~µs
    # no-cache: the browser revalidates each file on each load (a 304 while its ETag still
    # matches), so a module a deploy changed is never run beside another module's older copy.
    # Without it the browser caches by its heuristic (a tenth of the file's age). The ETag is
    # the content's hash: a wheel's files may keep one timestamp across builds.
    tag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"Cache-Control": "no-cache", "ETag": tag}
    seen = request.headers.get("if-none-match", "")
    if tag in (t.strip().removeprefix("W/") for t in seen.split(",")):  # a proxy may weaken it
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=FILES[name], headers=headers)


@router.post("/v1/scripts:parse", response_model=Parsed, responses=ERRORS, tags=["studio"])
def parse(body: ParseRequest, who: Tenant, service: Jobs) -> Parsed:
    """Parse and check a script as a job would (voices, pace, timeline) without creating
    one: the spec, each segment's pace, and warnings; 422 names the segment or line."""
    try:
        spec = parse_script(body.script, body.name)
    except RecursionError:
        raise InputError("the job spec is nested too deeply") from None
    options, lexicons = service.lexicons.resolve(who, service.presets.resolve(who, body.options))
    plan = service.pipeline.plan(spec, options, lexicons=lexicons)
    checks = pace_checks(plan.spec)
    segments = [
        ParsedSegment(
            index=c.index,
            label=s.label,
            text=s.text,
            seconds=s.seconds,
            syllables=round(c.syllables, 1),
            pace=round(c.pace, 2),
            max_pace=c.limit,
            overflows=c.overflows,
            voice=s.voice,
        )
        for c, s in zip(checks, spec.segments, strict=True)
    ]
    return Parsed(
        spec=spec.model_dump(mode="json", exclude_defaults=True),
        segments=segments,
        duration=_duration(plan.spec),
        warnings=plan.warnings,
    )


@router.get("/v1/jobs/{job_id}/source", response_model=Source, responses=ERRORS, tags=["studio"])
def source(job: OwnedJob) -> Source:
    """The job's spec and options as submitted, its preset's values as applied
    (``options.preset_values``): what a fix starts from."""
    return Source(
        id=job.id, spec=job.spec, options=job.options, has_video=job.has_video, parent=job.parent
    )


@router.get(
    "/v1/jobs/{job_id}/segments/{index}/audio",
    response_class=Response,
    responses={**ERRORS, 200: {"content": {"audio/wav": {}}, "description": "WAV"}},
    tags=["studio"],
)
def segment_audio(index: int, job: OwnedJob, service: Jobs) -> Response:
    """Segment ``index`` (1-based) as heard in narration.wav: its slot, fitted and
    normalised, as a WAV file."""
    manifest = service.artifact(job, "manifest.json")
    narration = service.artifact(job, "narration.wav")
    if manifest is None or narration is None:
        raise HTTPException(404, "the job has no narration yet")
    segs = json.loads(manifest.read(0, manifest.size).decode("utf-8"))["segments"]
    if not 1 <= index <= len(segs):
        raise HTTPException(404, f"no segment {index}: the job has {len(segs)}")
    seg = segs[index - 1]
    return Response(
        _slice_wav(narration, seg["start"], seg["end"]),
        media_type="audio/wav",
        headers={"Content-Disposition": f'inline; filename="segment-{index}.wav"'},
    )


@router.post(
    "/v1/jobs/{job_id}/rerender",
    status_code=202,
    response_model=Created,
    responses=ERRORS,
    tags=["studio"],
)
async def rerender(body: Rerender, request: Request, job: OwnedJob, service: Jobs) -> Response:
    """A new job from an edited spec, with the parent's video, music and (by default) options,
    and its recorded takes of the segments whose text did not change. Segments whose text,
    seconds and voice did not change hit the TTS cache."""
    new_id = service.new_id()
    try:
        child = await run_in_threadpool(_accept, service, job, new_id, body)
    except BaseException:
        await run_in_threadpool(service.drop_upload, job.tenant, new_id)
        raise
    url = str(request.url_for("get_job", job_id=child.id))
    created = Created(id=child.id, status=child.status, links=Links(self=url))
    return Response(
        created.model_dump_json(), 202, media_type="application/json", headers={"Location": url}
    )


def _accept(service: JobService, parent: Job, new_id: str, body: Rerender) -> Job:
    """The re-render as a stored, queued job (in a worker thread)."""
    return rerendering.rerender(service, parent, new_id, _spec(body.spec), body.options)


def _duration(spec: JobSpec) -> float:
    """The narration's length as the job will lay it out: the overflow policy applied
    (``extend`` lengthens a segment and pushes the later ones back) and starts kept."""
    slots = place_segments(spec, slots_ms(spec))
    return round(slots[-1].end_ms / 1000, 3) if slots else 0.0


def _spec(data: dict[str, Any]) -> JobSpec:
    try:
        spec = spec_from_data(data)
        spec.model_dump_json().encode("utf-8")
    except RecursionError:
        raise InputError("the job spec is nested too deeply") from None
    except (UnicodeEncodeError, ValueError) as exc:
        raise InputError("the job spec holds text that is not valid Unicode") from exc
    return spec


def _slice_wav(wav: Artifact, start: float, end: float) -> bytes:
    """Frames [start, end) s of a PCM WAV artifact, as a WAV file of their own: the header
    and then just those frames are read (the artifact may be in an object store)."""
    head = wav.read(0, min(wav.size, 4096))
    with wave.open(io.BytesIO(head), "rb") as src:
        rate, width = src.getframerate(), src.getsampwidth() * src.getnchannels()
        channels, total = src.getnchannels(), src.getnframes()
    data = data_offset(head)
    first = min(round(start * rate), total)
    last = max(first, min(round(end * rate), total))
    frames = wav.read(data + first * width, data + last * width)
    out = io.BytesIO()
    with wave.open(out, "wb") as dst:
        dst.setnchannels(channels)
        dst.setsampwidth(width // channels)
        dst.setframerate(rate)
        dst.writeframes(frames)
    return out.getvalue()


def data_offset(head: bytes) -> int:
    """Where a WAV file's frames start: after the RIFF header, past each chunk to ``data``."""
    pos = 12
    while pos + 8 <= len(head):
        size = int.from_bytes(head[pos + 4 : pos + 8], "little")
        if head[pos : pos + 4] == b"data":
            return pos + 8
        pos += 8 + size + (size & 1)
    raise HTTPException(500, "narration.wav has no data chunk in its first 4 KiB")

"""The studio: one page at ``/`` (static HTML/JS/CSS, no build step, works offline) and the
few JSON endpoints it needs beyond the job API: parse a script without creating a job, read
a job's source (to edit it), hear one segment, and re-render a job with fixes.

Every job route goes through ``owned``: another tenant's job does not exist for you."""

import io
import json
import os
import shutil
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, Field

from service.adapters.jobstore import Job
from service.api.schemas import Created, Links, Problem
from service.domain.errors import InputError
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.timeline import pace_checks
from service.jobs import JobService, QueueUnavailable

STATIC = Path(__file__).parent / "static"
FILES = {
    "studio.js": "text/javascript; charset=utf-8",
    "studio.css": "text/css; charset=utf-8",
}
MAX_FIELD = 1 << 20  # a script field, in characters (the script body limit is 1 MiB too)
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": Problem} for c in (401, 404, 413, 422)}


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
    warnings: list[str]


class Source(BaseModel):
    id: str
    spec: dict[str, Any]
    options: dict[str, Any]
    has_video: bool
    parent: str | None


class Rerender(BaseModel):
    spec: dict[str, Any] = Field(description="the edited job spec (JobSpec)")
    options: RenderOptions | None = Field(None, description="default: the parent's options")


def studio_router(
    service: JobService, tenant: Callable[..., str], owned: Callable[[str, str], Job]
) -> APIRouter:
    """The studio's routes, wired to the app's job service and tenant dependency."""
    router = APIRouter()
    Tenant = Annotated[str, Depends(tenant)]
    storage, pipeline = service.storage, service.pipeline
    page = (STATIC / "index.html").read_text(encoding="utf-8")

    @router.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    @router.get("/studio/{name}", include_in_schema=False)
    def static(name: str) -> FileResponse:
        if name not in FILES:
            raise HTTPException(404, "no such file")
        return FileResponse(STATIC / name, media_type=FILES[name])

    @router.post("/v1/scripts:parse", response_model=Parsed, responses=ERRORS, tags=["studio"])
    def parse(body: ParseRequest, who: Tenant) -> Parsed:
        """Parse and check a script as a job would (voices, pace, timeline) without creating
        one: the spec, each segment's pace, and warnings; 422 names the segment or line."""
        try:
            spec = parse_script(body.script, body.name)
        except RecursionError:
            raise InputError("the job spec is nested too deeply") from None
        plan = pipeline.plan(spec, body.options)
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
            duration=round(sum(s.seconds for s in spec.segments), 3),
            warnings=plan.warnings,
        )

    @router.get(
        "/v1/jobs/{job_id}/source", response_model=Source, responses=ERRORS, tags=["studio"]
    )
    def source(job_id: str, who: Tenant) -> Source:
        """The job's spec and options as submitted: what a fix starts from."""
        job = owned(job_id, who)
        return Source(
            id=job.id,
            spec=job.spec,
            options=job.options,
            has_video=job.has_video,
            parent=job.parent,
        )

    @router.get(
        "/v1/jobs/{job_id}/segments/{index}/audio",
        response_class=Response,
        responses={**ERRORS, 200: {"content": {"audio/wav": {}}, "description": "WAV"}},
        tags=["studio"],
    )
    def segment_audio(job_id: str, index: int, who: Tenant) -> Response:
        """Segment ``index`` (1-based) as heard in narration.wav: its slot, fitted and
        normalised, as a WAV file."""
        job = owned(job_id, who)
        if "narration.wav" not in job.artifacts or "manifest.json" not in job.artifacts:
            raise HTTPException(404, "the job has no narration yet")
        manifest = json.loads(storage.artifact(who, job.id, "manifest.json").read_text("utf-8"))
        segs = manifest["segments"]
        if not 1 <= index <= len(segs):
            raise HTTPException(404, f"no segment {index}: the job has {len(segs)}")
        seg = segs[index - 1]
        data = _slice_wav(storage.artifact(who, job.id, "narration.wav"), seg["start"], seg["end"])
        return Response(
            data,
            media_type="audio/wav",
            headers={"Content-Disposition": f'inline; filename="segment-{index}.wav"'},
        )

    @router.post(
        "/v1/jobs/{job_id}/rerender",
        status_code=202,
        response_model=Created,
        responses={**ERRORS, 503: {"model": Problem}},
        tags=["studio"],
    )
    async def rerender(job_id: str, body: Rerender, request: Request, who: Tenant) -> Response:
        """A new job from an edited spec, with the parent's video and (by default) options.
        Segments whose text, seconds and voice did not change hit the TTS cache."""
        parent = owned(job_id, who)
        new_id = service.new_id()

        def accept() -> Job:
            spec = _spec(body.spec)
            options = body.options or RenderOptions.model_validate(parent.options)
            video = None
            if parent.has_video:
                src = storage.input_video(who, parent.id)
                if not src.is_file():
                    raise InputError("the original video is gone: submit the job again")
                video = storage.input_video(who, new_id)
                video.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(src, video)  # same bytes, no copy
                except OSError:
                    shutil.copyfile(src, video)
            job, _ = service.submit(who, new_id, spec, options, video, parent=parent.id)
            return job

        try:
            job = await run_in_threadpool(accept)
        except QueueUnavailable:
            await run_in_threadpool(storage.delete, who, new_id)
            raise HTTPException(503, "the queue is unavailable, try again shortly") from None
        except BaseException:
            await run_in_threadpool(storage.delete, who, new_id)
            raise
        url = str(request.url_for("get_job", job_id=job.id))
        created = Created(id=job.id, status=job.status, links=Links(self=url))
        return Response(
            created.model_dump_json(),
            202,
            media_type="application/json",
            headers={"Location": url},
        )

    return router


def _spec(data: dict[str, Any]) -> JobSpec:
    try:
        spec = spec_from_data(data)
        spec.model_dump_json().encode("utf-8")
    except RecursionError:
        raise InputError("the job spec is nested too deeply") from None
    except (UnicodeEncodeError, ValueError) as exc:
        raise InputError("the job spec holds text that is not valid Unicode") from exc
    return spec


def _slice_wav(path: Path, start: float, end: float) -> bytes:
    """Frames [start, end) s of a PCM WAV file, as a WAV file of their own."""
    with wave.open(str(path), "rb") as src:
        rate = src.getframerate()
        first = min(round(start * rate), src.getnframes())
        src.setpos(first)
        frames = src.readframes(max(0, min(round(end * rate), src.getnframes()) - first))
        out = io.BytesIO()
        with wave.open(out, "wb") as dst:
            dst.setnchannels(src.getnchannels())
            dst.setsampwidth(src.getsampwidth())
            dst.setframerate(rate)
            dst.writeframes(frames)
    return out.getvalue()

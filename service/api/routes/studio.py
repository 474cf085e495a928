"""The studio: one page at ``/`` (static HTML/JS/CSS, no build step, works offline) and the
few JSON endpoints it needs beyond the job API: parse a script without creating a job, read
a job's source (to edit it), hear one segment, and re-render a job with fixes.

Every job route takes the job through ``OwnedJob``: another tenant's job does not exist for you."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from service.api.deps import Jobs, OwnedJob, Tenant
from service.api.schemas import Created, Links, from_record
from service.api.views import ERRORS
from service.api.wire_types import FreeObject
from service.domain.notices import Notice
from service.domain.spec import RenderOptions
from service.jobs import studio as use
from service.jobs.studio import BrokenArtifact, NotFound, Studio, edited_spec

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
    # Wire formats: a job spec as JSON, its defaults left out (what the studio edits and sends
    # back), and below the job's spec and options as submitted.
    spec: FreeObject
    segments: list[ParsedSegment]
    duration: float
    warnings: list[Notice]


class Source(BaseModel):
    id: str
    spec: FreeObject
    options: FreeObject
    has_video: bool
    parent: str | None


class Rerender(BaseModel):
    # A wire format: checked by edited_spec, for its errors to say what a script's say.
    spec: FreeObject = Field(description="the edited job spec (JobSpec)")
    options: RenderOptions | None = Field(None, description="default: the parent's options")


router = APIRouter()


def studio(service: Jobs) -> Studio:
    return Studio(service)


StudioCases = Annotated[Studio, Depends(studio)]
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
def parse(body: ParseRequest, who: Tenant, cases: StudioCases) -> Parsed:
    """Parse and check a script as a job would (voices, pace, timeline) without creating
    one: the spec, each segment's pace, and warnings; 422 names the segment or line."""
    found = cases.parse(who, body.script, body.name, body.options)
    segments = [
        from_record(
            ParsedSegment,
            s,  # its label, text, seconds and voice; the check's pace
            index=c.index,
            syllables=round(c.syllables, 1),
            pace=round(c.pace, 2),
            max_pace=c.limit,
            overflows=c.overflows,
        )
        for c, s in zip(found.checks, found.spec.segments, strict=True)
    ]
    return Parsed(
        spec=found.spec.model_dump(mode="json", exclude_defaults=True),
        segments=segments,
        duration=found.duration,
        warnings=found.plan.warnings,
    )


@router.get("/v1/jobs/{job_id}/source", response_model=Source, responses=ERRORS, tags=["studio"])
def source(job: OwnedJob) -> Source:
    """The job's spec and options as submitted, its preset's values as applied
    (``options.preset_values``): what a fix starts from."""
    return Source(
        id=job.id,
        spec=job.spec.model_dump(mode="json"),
        options=job.submitted.model_dump(mode="json"),
        has_video=job.has_video,
        parent=job.parent,
    )


@router.get(
    "/v1/jobs/{job_id}/segments/{index}/audio",
    response_class=Response,
    responses={**ERRORS, 200: {"content": {"audio/wav": {}}, "description": "WAV"}},
    tags=["studio"],
)
def segment_audio(index: int, job: OwnedJob, cases: StudioCases) -> Response:
    """Segment ``index`` (1-based) as heard in narration.wav: its slot, fitted and
    normalised, as a WAV file."""
    try:
        wav = cases.segment_audio(job, index)
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None
    except BrokenArtifact as exc:
        raise HTTPException(500, str(exc)) from None
    return Response(
        wav,
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
async def rerender(body: Rerender, request: Request, job: OwnedJob, cases: StudioCases) -> Response:
    """A new job from an edited spec, with the parent's video, music and (by default) options,
    and its recorded takes of the segments whose text did not change. Segments whose text,
    seconds and voice did not change hit the TTS cache."""
    child = await run_in_threadpool(
        lambda: cases.rerender(job, edited_spec(body.spec), body.options)
    )
    url = str(request.url_for("get_job", job_id=child.id))
    created = Created(id=child.id, status=child.status, links=Links(self=url))
    return Response(
        created.model_dump_json(), 202, media_type="application/json", headers={"Location": url}
    )


def data_offset(head: bytes) -> int:
    """Where a WAV file's frames start (``Studio``'s reading, as an HTTP 500 when broken)."""
    try:
        return use.data_offset(head)
    except BrokenArtifact as exc:
        raise HTTPException(500, str(exc)) from None

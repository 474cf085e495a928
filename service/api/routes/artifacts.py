"""/v1/jobs/{id}/artifacts/{name}: the files, with ETag and Range."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response
from fastapi.responses import FileResponse
from starlette.datastructures import Headers
from starlette.responses import MalformedRangeHeader, RangeNotSatisfiable
from starlette.types import Receive, Scope, Send

from service.api.deps import Jobs, OwnedJob
from service.api.views import ERRORS

router = APIRouter()
MEDIA_TYPES = {
    "narration.wav": "audio/wav",
    "mix.wav": "audio/wav",
    "subtitles.srt": "application/x-subrip",
    "subtitles.vtt": "text/vtt",
    "subtitles.ass": "text/x-ssa",
    "video.mp4": "video/mp4",
    "manifest.json": "application/json",
}


@router.api_route(
    "/v1/jobs/{job_id}/artifacts/{name}",
    methods=["GET", "HEAD"],
    response_class=FileResponse,
    responses={**ERRORS, 304: {"description": "If-None-Match matched the ETag"}},
)
def get_artifact(name: str, job: OwnedJob, service: Jobs) -> FileResponse:
    """The file, with ETag and Range (RFC 9110: If-None-Match gets 304, HEAD the headers
    alone, a Range header that cannot be parsed is ignored)."""
    path = service.artifact(job, name)
    if path is None:
        raise HTTPException(404, "no such artifact")
    return ArtifactResponse(
        path, media_type=MEDIA_TYPES[name], filename=name, stat_result=path.stat()
    )


class ArtifactResponse(FileResponse):
    """FileResponse plus the conditional and range rules of RFC 9110 that Starlette skips."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        etag = self.headers["etag"]
        match = headers.get("if-none-match")
        if match is not None:
            tags = {t.strip().removeprefix("W/") for t in match.split(",")}
            if "*" in tags or etag.removeprefix("W/") in tags:
                kept = {k: v for k, v in self.headers.items() if k in ("etag", "last-modified")}
                await Response(status_code=304, headers=kept)(scope, receive, send)
                return
        rng = headers.get("range")
        if rng is not None and self.stat_result is not None:
            try:
                self._parse_range_header(rng, self.stat_result.st_size)
            except MalformedRangeHeader:  # RFC 9110 14.2: ignore it and send the whole file
                scope = {
                    **scope,
                    "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"range"],
                }
            except RangeNotSatisfiable:
                pass  # Starlette answers 416
        await super().__call__(scope, receive, send)

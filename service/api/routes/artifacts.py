"""/v1/jobs/{id}/artifacts/{name}: the files, with ETag and Range, streamed from wherever the
storage keeps them; or, with ``?redirect=1`` and an object store, a short-lived presigned
URL to fetch them from the store directly."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, BinaryIO

import anyio
from anyio.to_thread import run_sync
from fastapi import APIRouter, HTTPException, Query, Response
from fastapi.responses import FileResponse, RedirectResponse
from starlette.datastructures import Headers
from starlette.responses import MalformedRangeHeader, RangeNotSatisfiable
from starlette.types import Receive, Scope, Send

from service.api.deps import CurrentSettings, Jobs, OwnedJob
from service.api.views import ERRORS
from service.ports import Artifact

router = APIRouter()
MEDIA_TYPES = {
    "narration.wav": "audio/wav",
    "mix.wav": "audio/wav",
    "subtitles.srt": "application/x-subrip",
    "subtitles.vtt": "text/vtt",
    "subtitles.ass": "text/x-ssa",
    "video.mp4": "video/mp4",
    "manifest.json": "application/json",
    "timeline.otio": "application/json",
    "timeline.fcpxml": "application/xml",
    "timeline.xml": "application/xml",
    "timeline.edl": "text/plain",
    "timeline-package.zip": "application/zip",
}


def media_type(name: str) -> str:
    """A listed artifact's type (a master's files as the job's of that name); segments/NN.wav
    are WAV."""
    return MEDIA_TYPES.get(name.rpartition("/")[2], "audio/wav")


REDIRECT = (
    "1: answer 307 with a presigned URL of the object store (valid NARRATE_PRESIGN_SECONDS) "
    "instead of streaming the bytes through the API; ignored (the file is streamed) when "
    "artifacts are kept on the API's own disk"
)


ARTIFACT = "/v1/jobs/{job_id}/artifacts/{name:path}"
ANSWERS = {
    **ERRORS,
    304: {"description": "If-None-Match matched the ETag"},
    307: {"description": "redirect=1: the presigned URL of the artifact, in Location"},
}


# GET and HEAD are two routes (FastAPI gives one route of both methods one operation id,
# taken from whichever method its set yields first): HEAD's operation id is its own.
@router.head(ARTIFACT, response_class=FileResponse, responses=ANSWERS)
@router.get(ARTIFACT, response_class=FileResponse, responses=ANSWERS)
def get_artifact(
    name: str,
    job: OwnedJob,
    service: Jobs,
    settings: CurrentSettings,
    redirect: Annotated[bool, Query(description=REDIRECT)] = False,
) -> Response:
    """The file, with ETag and Range (RFC 9110: If-None-Match gets 304, HEAD the headers
    alone, a Range header that cannot be parsed is ignored)."""
    artifact = service.artifact(job, name)  # only listed names (segments/NN.wav the one path)
    if artifact is None:
        raise HTTPException(404, "no such artifact")
    if redirect:
        url = artifact.url(settings.presign_seconds)
        if url is not None:
            return RedirectResponse(url, 307, headers={"Cache-Control": "no-store"})
    if artifact.path is not None:  # a local file: sent as it is
        return ArtifactResponse(
            artifact.path,
            media_type=media_type(name),
            filename=name.replace("/", "-"),
            stat_result=artifact.path.stat(),
        )
    return ObjectResponse(artifact, media_type(name), name.replace("/", "-"))


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


class ObjectResponse(ArtifactResponse):
    """An artifact in an object store, under the same rules (ETag, 304, HEAD, single and
    multiple ranges): the bytes are read from the store as they are sent."""

    def __init__(self, artifact: Artifact, media_type: str, filename: str) -> None:
        self.artifact = artifact
        t = int(artifact.modified)
        st = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, artifact.size, t, t, t))
        super().__init__(
            filename,  # never opened: _open_file reads the store
            media_type=media_type,
            filename=filename,
            stat_result=st,
            headers={"etag": artifact.etag},  # the store's own
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        extensions = {k: v for k, v in scope.get("extensions", {}).items() if "pathsend" not in k}
        await super().__call__({**scope, "extensions": extensions}, receive, send)

    @asynccontextmanager
    async def _open_file(self) -> AsyncIterator[Any]:
        reader = _StoredReader(self.artifact)
        try:
            yield reader
        finally:
            with anyio.CancelScope(shield=True):
                await reader.aclose()


class _StoredReader:
    """The async file FileResponse reads, over the store's ranged GETs."""

    def __init__(self, artifact: Artifact) -> None:
        self.artifact = artifact
        self.pos = 0
        self.stream: BinaryIO | None = None

    async def seek(self, pos: int) -> None:
        if self.stream is None or pos != self.pos:
            await self.aclose()
            self.pos = pos

    async def read(self, n: int) -> bytes:
        if self.stream is None:
            self.stream = await run_sync(self.artifact.open, self.pos)
        chunk: bytes = await run_sync(self.stream.read, n)
        self.pos += len(chunk)
        return chunk

    async def aclose(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await run_sync(stream.close)

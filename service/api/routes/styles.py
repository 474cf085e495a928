"""/v1/styles: the subtitle style presets, and a live still of each (the studio's style
picker): the sample cues drawn by libass with the style, on a frame of one of your jobs'
video or on a neutral background."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, Response
from pydantic import BaseModel

from service.api.deps import Jobs, Tenant
from service.api.views import ERRORS
from service.domain.errors import MediaError
from service.jobs.previews import StylePreviews

router = APIRouter(prefix="/v1/styles", responses=ERRORS)
PNG = {"content": {"image/png": {}}, "description": "the still, as a PNG"}


def previews(request: Request) -> StylePreviews:
    found: StylePreviews = request.app.state.previews
    return found


Previews = Annotated[StylePreviews, Depends(previews)]


class StyleOut(BaseModel):
    name: str
    description: str


class StyleList(BaseModel):
    styles: list[StyleOut]


@router.get("", response_model=StyleList)
def list_styles(service: Previews) -> StyleList:
    """Every preset by name (the built-in ``default`` first), as ``style.preset`` takes it."""
    return StyleList(
        styles=[
            StyleOut(name=name, description=str(preset.get("description", "")))
            for name, preset in service.presets().items()
        ]
    )


@router.get(
    "/{name}/preview.png",
    response_class=Response,
    responses={200: PNG, 304: {"description": "If-None-Match matched the ETag"}},
)
def style_preview(
    name: str,
    who: Tenant,
    jobs: Jobs,
    service: Previews,
    job: Annotated[str | None, Query(max_length=64, pattern="^[A-Za-z0-9]+$")] = None,
    at: Annotated[float, Query(ge=0, le=86400, description="seconds into the video")] = 0.0,
    width: Annotated[int, Query(ge=64, le=1080, description="the PNG's width")] = 540,
    frame: Annotated[Literal["portrait", "landscape"] | None, Query()] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """Narration (two lines), a qualifier on the top layer and a screen text, drawn with the
    style by libass as the burn-in draws them: on the frame of your job ``job``'s video at
    ``at`` seconds (at the video's size), else on a neutral 1080x1920 (``frame=landscape``
    or a landscape style: 1920x1080) background; scaled to ``width``. Cached, with ETag."""
    owned = jobs.owned(job, who) if job is not None else None
    if job is not None and owned is None:
        raise HTTPException(404, "no such job")  # another tenant's job does not exist for you
    try:
        key = service.key(name, owned, at, width, frame)
    except KeyError:
        raise HTTPException(404, f"no style preset named {name!r}") from None
    headers = {"ETag": key.etag, "Cache-Control": "private, no-cache"}
    if if_none_match is not None and key.etag in {t.strip() for t in if_none_match.split(",")}:
        return Response(status_code=304, headers=headers)
    try:
        still = service.draw(key, owned)
    except FileNotFoundError:
        raise HTTPException(404, "the job's video is gone") from None
    except MediaError as exc:
        if exc.unavailable:
            raise
        raise HTTPException(422, f"no frame of the video at {key.at:.1f} s") from None
    return Response(still.png, media_type="image/png", headers=headers)

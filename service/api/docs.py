"""/docs: Swagger UI from the fastapi-offline package's copy of its assets, served here, so
the page that shares an origin with the studio's stored API key runs no script from a CDN.
NARRATE_DOCS=false turns it off (/openapi.json stays)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

PAGES = Path(__file__).parent / "static" / "docs"


def install(app: FastAPI) -> None:
    assets = Path(str(files("fastapi_offline") / "static"))
    app.mount("/docs/assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(PAGES / "index.html", media_type="text/html; charset=utf-8")

    @app.get("/docs/init.js", include_in_schema=False)
    async def init() -> FileResponse:
        return FileResponse(PAGES / "init.js", media_type="text/javascript; charset=utf-8")

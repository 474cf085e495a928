"""The REST API: submit jobs, follow them, download artifacts. HTTP -> queue only: no
rendering happens here. The routes (service/api/routes/) talk to JobService alone."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from importlib.metadata import version

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from service import wiring
from service.api import docs, errors, mcp_mount
from service.api.guard import BrowserGuard, SecurityHeaders
from service.api.limits import BodyIdle, BodyLimit
from service.api.routes import (
    artifacts,
    batch_events,
    batches,
    events,
    health,
    jobs,
    lexicons,
    presets,
    samples,
    speech,
    studio,
    styles,
    voices,
    waveform,
    webhooks,
)
from service.config import Settings, get_settings
from service.domain.spec import JobSpec
from service.domain.wire import JsonObject
from service.jobs import JobService

log = logging.getLogger("narrate.api")


def create_app(settings: Settings | None = None, built: wiring.Built | None = None) -> FastAPI:
    """The app on ``built`` (by default what service/wiring.py builds from settings)."""
    settings = settings or get_settings()
    built = built or wiring.build(settings)
    app = FastAPI(
        title="narrate",
        version=version("narrate"),  # one version: pyproject.toml's
        description="TTS narration and subtitle production. Submit a script, follow the job, "
        "download narration.wav, subtitles and video.mp4.",
        docs_url=None,  # docs.install serves it without a CDN
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.jobs = built.job_service
    app.state.batches = built.batch_service
    app.state.keys = built.keys
    app.state.speech = built.speech_desk
    app.state.speech_encoder = wiring.stream_encoder(settings)
    app.state.previews = built.style_previews
    app.add_middleware(BodyLimit, **BodyLimit.limits(settings))
    app.add_middleware(BodyIdle, seconds=settings.upload_idle_timeout)
    app.add_middleware(BrowserGuard, settings=settings)  # outside BodyLimit: refused unread
    app.add_middleware(SecurityHeaders)  # outermost: refusals carry the headers too
    errors.install(app)
    if settings.docs:
        docs.install(app)
    routers = [events, jobs, batch_events, batches, artifacts, voices, samples, speech, presets]
    routers.append(health)
    for module in [*routers, studio, styles, waveform, webhooks, lexicons]:
        app.include_router(module.router)
    app.state.mcp = mcp_mount.install(app, settings, app.state.jobs, app.state.keys)
    app.openapi = lambda: openapi(app)  # type: ignore[method-assign]
    return app


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Count the jobs stored before /metrics kept counts, once per store, in a thread: the
    API answers meanwhile."""
    service: JobService = app.state.jobs
    stop = threading.Event()
    threading.Thread(
        target=service.count_stored_jobs, args=(stop,), name="count-jobs", daemon=True
    ).start()
    async with mcp_mount.running(app.state.mcp):  # /mcp's sessions (service/api/mcp_mount.py)
        yield
    stop.set()


def openapi(app: FastAPI) -> JsonObject:
    """The job spec is read from the raw body (JSON or multipart), so publish its schema."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        defs = JobSpec.model_json_schema(ref_template="#/components/schemas/{model}")
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(defs.pop("$defs", {}))
        components["JobSpec"] = defs
        _every_operation_answers(schema)
        app.openapi_schema = schema
    return app.openapi_schema


# Answers any operation can give before its own code runs: a request whose body or head
# cannot be parsed (400), a body (or one of its parts) over its limit (413).
ANY_OPERATION = {
    "400": "the request could not be parsed (a malformed body or header)",
    "413": "the request body, or one of its parts, is over its limit",
}


def _every_operation_answers(schema: JsonObject) -> None:
    """List ANY_OPERATION's answers on every operation (schemathesis saw both undocumented)."""
    for op in _operations(schema):
        answers = op.setdefault("responses", {})
        if isinstance(answers, dict):
            for code, said in ANY_OPERATION.items():
                answers.setdefault(code, {"description": said})


def _operations(schema: JsonObject) -> Iterator[JsonObject]:
    """The document's operation objects (each path item's, by method)."""
    paths = schema.get("paths", {})
    for item in paths.values() if isinstance(paths, dict) else ():
        if isinstance(item, dict):
            yield from (op for op in item.values() if isinstance(op, dict))

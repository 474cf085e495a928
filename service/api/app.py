"""The REST API: submit jobs, follow them, download artifacts. HTTP -> queue only: no
rendering happens here."""

import hashlib
import json
import logging
from typing import Annotated, Any

import redis
from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import MalformedRangeHeader, RangeNotSatisfiable
from starlette.types import Receive, Scope, Send

from service.adapters.jobstore import IdempotencyConflict, Job, JobStore
from service.adapters.queue import QUEUE, make_celery
from service.api.limits import BodyLimit, BodyTooLarge
from service.api.schemas import (
    Created,
    Health,
    JobList,
    JobOut,
    Links,
    Problem,
    SegmentState,
    Voice,
)
from service.api.uploads import Upload, read_multipart
from service.config import Settings, get_settings
from service.domain.errors import InputError
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.jobs import QueueUnavailable, build_service
from service.keys import KeyStore
from service.pipeline import ARTIFACTS

log = logging.getLogger("narrate.api")
MEDIA_TYPES = {
    "narration.wav": "audio/wav",
    "subtitles.srt": "application/x-subrip",
    "subtitles.vtt": "text/vtt",
    "subtitles.ass": "text/x-ssa",
    "video.mp4": "video/mp4",
    "manifest.json": "application/json",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem},
    404: {"model": Problem},
    409: {"model": Problem},
    413: {"model": Problem},
    422: {"model": Problem},
    503: {"model": Problem},
}


class Unavailable(Exception):
    pass


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    keys = KeyStore(settings.keys_file)
    celery = make_celery(settings)
    service = build_service(settings, lambda name, args: celery.send_task(name, args=args))
    log.info("Redis calls time out after %g s", settings.redis_timeout)
    store, storage, pipeline = service.store, service.storage, service.pipeline
    app = FastAPI(
        title="narrate",
        version="0.1.0",
        description="TTS narration and subtitle production. Submit a script, follow the job, "
        "download narration.wav, subtitles and video.mp4.",
    )

    app.add_middleware(
        BodyLimit, limit=settings.max_script_bytes + settings.max_video_bytes + (1 << 20)
    )

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return JSONResponse(
            {"detail": f"request body is over the limit of {exc.limit} bytes"},
            413,
            headers={"Connection": "close"},
        )

    @app.exception_handler(redis.RedisError)
    async def _redis_down(request: Request, exc: redis.RedisError) -> JSONResponse:
        return JSONResponse(
            {"detail": "the job store is unavailable, try again shortly"},
            503,
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(InputError)
    async def _bad_input(request: Request, exc: InputError) -> JSONResponse:
        return JSONResponse({"detail": service.public(str(exc))}, 422)

    def tenant(authorization: Annotated[str | None, Header()] = None) -> str:
        if authorization:
            scheme, _, key = authorization.partition(" ")
            found = keys.tenant(key.strip()) if scheme.lower() == "bearer" else None
            if not found:
                raise HTTPException(401, "invalid API key", headers={"WWW-Authenticate": "Bearer"})
            return found
        if settings.keys_required:
            raise HTTPException(
                401, "an API key is required", headers={"WWW-Authenticate": "Bearer"}
            )
        return "local"

    Tenant = Annotated[str, Depends(tenant)]

    def links(request: Request, job: Job) -> Links:
        base = str(request.url_for("get_job", job_id=job.id))
        return Links(self=base, artifacts={n: f"{base}/artifacts/{n}" for n in job.artifacts})

    def view(request: Request, job: Job) -> JobOut:
        segs = [
            SegmentState(
                index=i + 1,
                **{k: v for k, v in s.items() if k in SegmentState.model_fields and k != "index"},
            )
            for i, s in sorted(job.segments.items())
        ]
        return JobOut(
            id=job.id,
            status=job.status,
            progress=job.progress,
            stage=job.stage,
            created=job.created,
            updated=job.updated,
            title=str(job.spec.get("title", "")),
            segments=segs,
            engines=[s.engine for s in segs],
            timings=job.timings,
            warnings=job.warnings,
            error=job.error,
            artifacts=job.artifacts,
            links=links(request, job),
        )

    def owned(job_id: str, who: str) -> Job:
        job = store.get(job_id) if job_id.isalnum() and len(job_id) <= 64 else None
        if job is None or job.tenant != who:
            raise HTTPException(404, "no such job")  # another tenant's job does not exist for you
        return job

    @app.post(
        "/v1/jobs",
        status_code=202,
        response_model=Created,
        responses=ERRORS,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/JobSpec"}},
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "required": ["script"],
                            "properties": {
                                "script": {"type": "string", "format": "binary"},
                                "video": {"type": "string", "format": "binary"},
                                "options": {
                                    "type": "string",
                                    "description": "RenderOptions as JSON",
                                },
                            },
                        }
                    },
                },
            }
        },
    )
    async def create_job(
        request: Request,
        response: Response,
        who: Tenant,
        idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
    ) -> Created:
        """Create a job from a JSON job spec, or from multipart fields `script` (Markdown or
        JSON file), optional `video` (file) and optional `options` (JSON)."""
        job_id = service.new_id()
        ctype = request.headers.get("content-type", "")
        try:
            if ctype.startswith("multipart/form-data"):
                upload = await read_multipart(
                    request,
                    storage.input_video(who, job_id),
                    settings.max_script_bytes,
                    settings.max_video_bytes,
                )
                body: bytes | Upload = upload
            else:
                raw = bytearray()
                async for chunk in request.stream():  # never buffer more than the limit
                    raw += chunk
                    if len(raw) > settings.max_script_bytes:
                        raise HTTPException(
                            413, f"job spec is over the limit of {settings.max_script_bytes} bytes"
                        )
                body = bytes(raw)
            # Parsing, planning (ffprobe) and Redis all block: never on the event loop.
            job, created = await run_in_threadpool(accept, who, job_id, body, idempotency_key)
        except IdempotencyConflict:
            await run_in_threadpool(storage.delete, who, job_id)
            raise HTTPException(
                409, "Idempotency-Key was already used with a different body"
            ) from None
        except QueueUnavailable:
            await run_in_threadpool(storage.delete, who, job_id)
            raise Unavailable() from None
        except BaseException:
            await run_in_threadpool(storage.delete, who, job_id)
            raise
        if not created:
            await run_in_threadpool(storage.delete, who, job_id)
        response.headers["Location"] = str(request.url_for("get_job", job_id=job.id))
        return Created(id=job.id, status=job.status, links=links(request, job))

    def accept(
        who: str, job_id: str, body: bytes | Upload, idempotency_key: str | None
    ) -> tuple[Job, bool]:
        """Turn a read body into a stored, queued job (in a worker thread)."""
        try:
            if isinstance(body, Upload):
                digest = body.digest.hexdigest()
                try:
                    text = body.script.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError("the script is not UTF-8 text") from None
                spec = parse_script(text, body.script_name)
                options = _options(body.options)
                video = body.video
            else:
                digest = hashlib.sha256(body).hexdigest()
                data = _json_object(body)
                options = _options(json.dumps(data.pop("options", {})))
                spec = spec_from_data(data)
                video = None
            _check_unicode(spec)
        except RecursionError:
            raise InputError("the job spec is nested too deeply") from None
        idem = (idempotency_key, digest) if idempotency_key else None
        return service.submit(who, job_id, spec, options, video, idem)

    @app.exception_handler(Unavailable)
    async def _unavailable(request: Request, exc: Unavailable) -> JSONResponse:
        return JSONResponse(
            {"detail": "the queue is unavailable, try again shortly"},
            503,
            headers={"Retry-After": "5"},
        )

    @app.get("/v1/jobs/{job_id}", response_model=JobOut, responses=ERRORS)
    def get_job(job_id: str, request: Request, who: Tenant) -> JobOut:
        return view(request, owned(job_id, who))

    @app.get("/v1/jobs", response_model=JobList, responses=ERRORS)
    def list_jobs(
        request: Request,
        who: Tenant,
        status: Annotated[
            str | None, Query(pattern="^(queued|running|succeeded|failed|canceled)$")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        cursor: Annotated[int | None, Query(ge=0)] = None,
    ) -> JobList:
        jobs, nxt = store.page(who, status, limit, cursor)
        return JobList(jobs=[view(request, j) for j in jobs], next_cursor=nxt)

    @app.api_route(
        "/v1/jobs/{job_id}/artifacts/{name}",
        methods=["GET", "HEAD"],
        response_class=FileResponse,
        responses={**ERRORS, 304: {"description": "If-None-Match matched the ETag"}},
    )
    def get_artifact(job_id: str, name: str, who: Tenant) -> FileResponse:
        """The file, with ETag and Range (RFC 9110: If-None-Match gets 304, HEAD the headers
        alone, a Range header that cannot be parsed is ignored)."""
        job = owned(job_id, who)
        if name not in ARTIFACTS or name not in job.artifacts:
            raise HTTPException(404, "no such artifact")
        path = storage.artifact(who, job.id, name)
        if not path.is_file() or path.is_symlink():
            raise HTTPException(404, "no such artifact")
        return ArtifactResponse(
            path, media_type=MEDIA_TYPES[name], filename=name, stat_result=path.stat()
        )

    @app.delete("/v1/jobs/{job_id}", responses=ERRORS)
    def delete_job(job_id: str, who: Tenant) -> dict[str, str]:
        job = owned(job_id, who)
        return {"id": job.id, "result": service.cancel_or_delete(job)}

    @app.get("/v1/voices", response_model=list[Voice], responses=ERRORS)
    def voices(who: Tenant, language: str | None = None) -> list[Voice]:
        if language is not None and not 2 <= len(language) <= 35:
            raise HTTPException(422, "language: expected a language or locale such as zh, en-GB")
        return [
            Voice(
                id=v.id,
                engine=v.engine,
                language=v.language,
                gender=v.gender,
                default=v.default,
                locale=v.locale or v.language,
                name=v.name,
            )
            for v in pipeline.catalog.filter(language)
        ]

    @app.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        # On the event loop itself, not the thread pool: it answers even when every pool
        # thread waits on a hung Redis.
        return Health(status="ok")

    @app.get("/readyz", response_model=Health, responses={503: {"model": Health}})
    def readyz() -> JSONResponse:
        checks: dict[str, Any] = {"redis": store.ping()}
        workers: list[Any] = []
        if checks["redis"]:
            try:
                workers = celery.control.ping(timeout=1.0) or []
            except Exception:
                workers = []
        checks["workers"] = len(workers)
        ok = checks["redis"] and checks["workers"] > 0
        return JSONResponse(
            Health(status="ok" if ok else "unavailable", checks=checks).model_dump(),
            200 if ok else 503,
        )

    @app.get("/metrics", response_class=PlainTextResponse)
    def metrics() -> PlainTextResponse:
        registry = CollectorRegistry()
        registry.register(_Collector(store))
        return PlainTextResponse(
            generate_latest(registry).decode(), media_type="text/plain; version=0.0.4"
        )

    def openapi() -> dict[str, Any]:
        # The job spec is read from the raw body (JSON or multipart), so publish its schema.
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            defs = JobSpec.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(defs.pop("$defs", {}))
            components["JobSpec"] = defs
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError("the body must be a JSON object (a job spec)")
    return data


def _check_unicode(spec: JobSpec) -> None:
    """JSON may carry lone surrogates (\\ud800) that no UTF-8 store can hold."""
    try:
        spec.model_dump_json().encode("utf-8")
    except (UnicodeEncodeError, ValueError) as exc:
        raise InputError(
            "the job spec holds text that is not valid Unicode (a lone surrogate such as \\ud800)"
        ) from exc


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


def _options(raw: str) -> RenderOptions:
    try:
        return RenderOptions.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InputError(f"options{' ' + where if where else ''}: {first['msg']}") from None


class _Collector:
    """Reads the figures from Redis at scrape time: every worker process contributes."""

    def __init__(self, store: JobStore) -> None:
        self.store = store

    def collect(self) -> Any:
        jobs = GaugeMetricFamily("narrate_jobs", "Jobs by state", labels=["state"])
        for state, n in self.store.count_by_state().items():
            jobs.add_metric([state], n)
        yield jobs
        depth = GaugeMetricFamily("narrate_queue_depth", "Tasks waiting in the queue")
        depth.add_metric([], self.store.queue_depth(QUEUE))
        yield depth
        hist = HistogramMetricFamily(
            "narrate_stage_seconds", "Wall time per pipeline stage", labels=["stage"]
        )
        for stage, data in self.store.stage_histograms().items():
            buckets = [(str(b), data.get(str(b), 0.0)) for b in JobStore.BUCKETS]
            buckets.append(("+Inf", data.get("count", 0.0)))
            hist.add_metric([stage], buckets, data.get("sum", 0.0))
        yield hist
        tts = CounterMetricFamily(
            "narrate_tts_calls",
            "Requests that reached each TTS engine (cache hits excluded)",
            labels=["engine"],
        )
        for engine, n in self.store.tts_calls().items():
            tts.add_metric([engine], n)
        yield tts

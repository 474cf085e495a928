"""The REST API: submit jobs, follow them, download artifacts. HTTP -> queue only: no
rendering happens here."""

import hashlib
import json
import logging
from pathlib import Path
from typing import Annotated, Any

import redis
from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from pydantic import ValidationError

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
from service.api.uploads import read_multipart
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
        return JSONResponse({"detail": str(exc)}, 422)

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
        digest = hashlib.sha256()
        video: Path | None = None
        ctype = request.headers.get("content-type", "")
        try:
            if ctype.startswith("multipart/form-data"):
                upload = await read_multipart(
                    request,
                    storage.input_video(who, job_id),
                    settings.max_script_bytes,
                    settings.max_video_bytes,
                )
                digest = upload.digest
                video = upload.video
                try:
                    text = upload.script.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError("the script is not UTF-8 text") from None
                spec = parse_script(text, upload.script_name)
                options = _options(upload.options)
            else:
                body = bytearray()
                async for chunk in request.stream():  # never buffer more than the limit
                    body += chunk
                    if len(body) > settings.max_script_bytes:
                        raise HTTPException(
                            413, f"job spec is over the limit of {settings.max_script_bytes} bytes"
                        )
                digest.update(body)
                try:
                    data = json.loads(body)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise InputError(f"the body is not valid JSON: {exc}") from None
                if not isinstance(data, dict):
                    raise InputError("the body must be a JSON object (a job spec)")
                options = _options(json.dumps(data.pop("options", {})))
                spec = spec_from_data(data)
            idem = (idempotency_key, digest.hexdigest()) if idempotency_key else None
            job, created = service.submit(who, job_id, spec, options, video, idem)
        except IdempotencyConflict:
            storage.delete(who, job_id)
            raise HTTPException(
                409, "Idempotency-Key was already used with a different body"
            ) from None
        except QueueUnavailable:
            storage.delete(who, job_id)
            raise Unavailable() from None
        except BaseException:
            storage.delete(who, job_id)
            raise
        if not created:
            storage.delete(who, job_id)
        response.headers["Location"] = str(request.url_for("get_job", job_id=job.id))
        return Created(id=job.id, status=job.status, links=links(request, job))

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

    @app.get("/v1/jobs/{job_id}/artifacts/{name}", response_class=FileResponse, responses=ERRORS)
    def get_artifact(job_id: str, name: str, who: Tenant) -> FileResponse:
        job = owned(job_id, who)
        if name not in ARTIFACTS or name not in job.artifacts:
            raise HTTPException(404, "no such artifact")
        path = storage.artifact(who, job.id, name)
        if not path.is_file() or path.is_symlink():
            raise HTTPException(404, "no such artifact")
        return FileResponse(path, media_type=MEDIA_TYPES[name], filename=name)

    @app.delete("/v1/jobs/{job_id}", responses=ERRORS)
    def delete_job(job_id: str, who: Tenant) -> dict[str, str]:
        job = owned(job_id, who)
        return {"id": job.id, "result": service.cancel_or_delete(job)}

    @app.get("/v1/voices", response_model=list[Voice], responses=ERRORS)
    def voices(who: Tenant) -> list[Voice]:
        return [
            Voice(id=v.id, engine=v.engine, language=v.language, gender=v.gender, default=v.default)
            for v in pipeline.catalog.voices
        ]

    @app.get("/healthz", response_model=Health)
    def healthz() -> Health:
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

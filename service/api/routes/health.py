"""/healthz (the process answers), /readyz (Redis answers, a worker beats, and with fair
share a dispatcher has held its lease lately), /metrics."""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from service.api.deps import CurrentSettings, Jobs
from service.api.guard import local_client
from service.api.ready import ready_cache
from service.api.schemas import Health
from service.jobs import JobService
from service.jobs.service import Figures
from service.ports import BUCKETS, WAIT_BUCKETS

router = APIRouter()


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    # On the event loop itself, not the thread pool: it answers even when every pool
    # thread waits on a hung Redis.
    return Health(status="ok")


@router.get("/readyz", response_model=Health, responses={503: {"model": Health}})
async def readyz(request: Request) -> JSONResponse:
    # On the event loop, not the request path's thread pool: the answer is read (one Redis
    # call, in a thread of its own) at most once a second, however many probes wait on it.
    found = await ready_cache(request.app).get()  # /readyz's JSON body
    ok = bool(found["ready"])  # Redis, a worker, and (fair share) a dispatcher lately
    checks = {k: v for k, v in found.items() if k != "ready"}
    return JSONResponse(
        Health(status="ok" if ok else "unavailable", checks=checks).model_dump(),
        200 if ok else 503,
    )


def scraper(request: Request, settings: CurrentSettings) -> None:
    """/metrics is for the operator: the NARRATE_METRICS_TOKEN as a Bearer token or, with
    none set, a client on this machine (not through a proxy)."""
    token = settings.metrics_token
    if token:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            raise HTTPException(
                401,
                "/metrics needs NARRATE_METRICS_TOKEN as a Bearer token",
                headers={"WWW-Authenticate": "Bearer"},
            )
    elif not local_client(request.scope):
        raise HTTPException(
            403,
            "/metrics answers only clients on this machine; set NARRATE_METRICS_TOKEN "
            "to scrape it from elsewhere",
        )


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    dependencies=[Depends(scraper)],
    responses={401: {"description": "a wrong or missing token"}, 403: {"description": "not local"}},
)
def metrics(service: Jobs) -> PlainTextResponse:
    registry = CollectorRegistry()
    registry.register(Collector(service))
    return PlainTextResponse(
        generate_latest(registry).decode(), media_type="text/plain; version=0.0.4"
    )


class Collector:
    """Reads the figures from Redis at scrape time: every worker process contributes."""

    def __init__(self, service: JobService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        figures = self.service.figures()
        jobs = GaugeMetricFamily("narrate_jobs", "Jobs by state", labels=["state"])
        for state, n in figures.jobs_by_state.items():
            jobs.add_metric([state], n)
        yield jobs
        depth = GaugeMetricFamily("narrate_queue_depth", "Tasks waiting in the queue")
        depth.add_metric([], figures.queue_depth)
        yield depth
        tenants = GaugeMetricFamily(
            "narrate_tenant_jobs", "Queued and running jobs per tenant", labels=["tenant", "state"]
        )
        for (tenant, state), n in sorted(figures.tenant_jobs.items()):
            tenants.add_metric([tenant, state], n)
        yield tenants
        yield from tenant_figures(figures)
        yield from backlog_figures(figures, self.service.settings.autoscale_concurrency)
        hist = HistogramMetricFamily(
            "narrate_stage_seconds", "Wall time per pipeline stage", labels=["stage"]
        )
        for stage, data in figures.stage_histograms.items():
            buckets = [(str(b), data.get(str(b), 0.0)) for b in BUCKETS]
            buckets.append(("+Inf", data.get("count", 0.0)))
            hist.add_metric([stage], buckets, data.get("sum", 0.0))
        yield hist
        tts = CounterMetricFamily(
            "narrate_tts_calls",
            "Requests that reached each TTS engine (cache hits excluded)",
            labels=["engine"],
        )
        for engine, n in figures.tts_calls.items():
            tts.add_metric([engine], n)
        yield tts


def backlog_figures(figures: Figures, concurrency: int) -> Iterator[Metric]:
    """What an autoscaler scales workers on (service/domain/backlog.py): per queue, the
    tasks waiting (lanes + queue) and running, and the workers of ``concurrency`` slots
    (NARRATE_AUTOSCALE_CONCURRENCY) they need, ceil((waiting + running) / concurrency)."""
    tasks = GaugeMetricFamily(
        "narrate_backlog_tasks",
        "Tasks waiting (tenant lanes + queue) and running (held by a worker), per queue",
        labels=["queue", "state"],
    )
    desired = GaugeMetricFamily(
        "narrate_desired_workers",
        "ceil((waiting + running) / NARRATE_AUTOSCALE_CONCURRENCY), per queue",
        labels=["queue"],
    )
    for queue, found in sorted(figures.backlog.items()):
        tasks.add_metric([queue, "waiting"], found.waiting)
        tasks.add_metric([queue, "running"], found.running)
        desired.add_metric([queue], found.desired_workers(concurrency))
    yield tasks
    yield desired


def tenant_figures(figures: Figures) -> Iterator[Metric]:
    """Fair share, per tenant: tasks waiting in its lane, and how long its jobs waited from
    submit to their first segment's start."""
    depth = GaugeMetricFamily(
        "narrate_tenant_queue_depth", "Tasks waiting in each tenant's lane", labels=["tenant"]
    )
    for tenant, n in sorted(figures.tenant_depths.items()):
        depth.add_metric([tenant], n)
    yield depth
    wait = HistogramMetricFamily(
        "narrate_tenant_wait_seconds",
        "Time from a job's submission to its first segment's start",
        labels=["tenant"],
    )
    for tenant, data in sorted(figures.tenant_waits.items()):
        buckets = [(str(b), data.get(str(b), 0.0)) for b in WAIT_BUCKETS]
        buckets.append(("+Inf", data.get("count", 0.0)))
        wait.add_metric([tenant], buckets, data.get("sum", 0.0))
    yield wait

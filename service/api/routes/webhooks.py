"""/v1/webhooks: a tenant's webhook endpoints (Standard Webhooks; each secret shown once, at
creation), its default secret (for jobs' own ``webhook_url``), and each job's and batch's delivery
attempts. Another tenant's endpoints and deliveries do not exist for you."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from service.api.deps import Jobs, OwnedJob, Tenant
from service.api.routes.batches import OwnedBatch
from service.api.views import ERRORS
from service.domain.webhooks import EVENTS
from service.jobs.webhooks import Webhooks
from service.ports.webhooks import Endpoint

router = APIRouter(responses=ERRORS, tags=["webhooks"])


class EndpointIn(BaseModel):
    url: str = Field(description="http(s) URL the events are POSTed to")
    events: list[str] | None = Field(
        None, description=f"any of {', '.join(EVENTS)}; none: the three ends of a job"
    )


class EndpointOut(BaseModel):
    id: str
    url: str
    events: list[str]
    created: float
    secret: str | None = Field(None, description="whsec_...: in the creation's answer only")


class SecretOut(BaseModel):
    secret: str = Field(description="the new default secret (whsec_...), shown this once")


class AttemptOut(BaseModel):
    time: float
    webhook_id: str = Field(description="the webhook-id header: the same on every retry")
    event: str
    url: str
    endpoint: str | None = Field(description="None: the job's own webhook_url")
    http_status: int | None
    error: str | None
    next_try: float | None = Field(description="None: no more tries")


def _hooks(service: Jobs) -> Webhooks:
    if service.webhooks is None:
        raise HTTPException(503, "webhooks are not configured")
    return service.webhooks


def _out(e: Endpoint, secret: bool = False) -> EndpointOut:
    shown = e.secret if secret else None
    return EndpointOut(id=e.id, url=e.url, events=e.events, created=e.created, secret=shown)


@router.post("/v1/webhooks", response_model=EndpointOut, status_code=201)
def create_webhook(body: EndpointIn, who: Tenant, service: Jobs) -> EndpointOut:
    """Register an endpoint; its secret is in this answer and never again."""
    return _out(_hooks(service).register(who, body.url, body.events), secret=True)


@router.get("/v1/webhooks", response_model=list[EndpointOut])
def list_webhooks(who: Tenant, service: Jobs) -> list[EndpointOut]:
    return [_out(e) for e in _hooks(service).endpoints(who)]


@router.delete("/v1/webhooks/{endpoint_id}")
def delete_webhook(endpoint_id: str, who: Tenant, service: Jobs) -> dict[str, str]:
    if not _hooks(service).delete(who, endpoint_id):
        raise HTTPException(404, "no such webhook endpoint")
    return {"id": endpoint_id, "result": "deleted"}


@router.post("/v1/webhooks/secret", response_model=SecretOut, status_code=201)
def rotate_secret(who: Tenant, service: Jobs) -> SecretOut:
    """Create (or replace) the default secret that signs jobs' own ``webhook_url`` events."""
    return SecretOut(secret=_hooks(service).rotate_default(who))


def _attempts(hooks: Webhooks, owner_id: str) -> list[AttemptOut]:
    return [
        AttemptOut(
            time=a.at,
            webhook_id=a.delivery,
            event=a.event,
            url=a.url,
            endpoint=a.endpoint or None,
            http_status=a.status,
            error=a.error,
            next_try=a.next_try,
        )
        for a in hooks.attempts(owner_id)
    ]


@router.get("/v1/jobs/{job_id}/deliveries", response_model=list[AttemptOut])
def job_deliveries(job: OwnedJob, service: Jobs) -> list[AttemptOut]:
    """Every webhook delivery attempt for the job, oldest first."""
    return _attempts(_hooks(service), job.id)


@router.get("/v1/batches/{batch_id}/deliveries", response_model=list[AttemptOut])
def batch_deliveries(batch: OwnedBatch, service: Jobs) -> list[AttemptOut]:
    """Every delivery attempt of the batch's ``batch.completed``, oldest first (its items'
    own events are under each job's deliveries)."""
    return _attempts(_hooks(service), batch.id)

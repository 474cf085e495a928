"""What routes depend on, in one place: the application service, the settings, the caller's
tenant (from the API key) and the job it names. create_app puts the first two on app.state."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from service.config import Settings
from service.domain.job import Job
from service.jobs import JobService
from service.jobs.keys import KeyStore


def jobs(request: Request) -> JobService:
    service: JobService = request.app.state.jobs
    return service


def settings(request: Request) -> Settings:
    found: Settings = request.app.state.settings
    return found


def tenant(request: Request, authorization: Annotated[str | None, Header()] = None) -> str:
    """The tenant whose API key the request carries; "local" when keys are not required."""
    keys: KeyStore = request.app.state.keys
    if authorization:
        scheme, _, key = authorization.partition(" ")
        found = keys.tenant(key.strip()) if scheme.lower() == "bearer" else None
        if not found:
            raise HTTPException(401, "invalid API key", headers={"WWW-Authenticate": "Bearer"})
        return found
    if request.app.state.settings.keys_required:
        raise HTTPException(401, "an API key is required", headers={"WWW-Authenticate": "Bearer"})
    return "local"


Jobs = Annotated[JobService, Depends(jobs)]
CurrentSettings = Annotated[Settings, Depends(settings)]
Tenant = Annotated[str, Depends(tenant)]


def owned_job(job_id: str, who: Tenant, service: Jobs) -> Job:
    job = service.owned(job_id, who)
    if job is None:
        raise HTTPException(404, "no such job")  # another tenant's job does not exist for you
    return job


OwnedJob = Annotated[Job, Depends(owned_job)]

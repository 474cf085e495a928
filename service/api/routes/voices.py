"""/v1/voices: the voice catalog."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.deps import Jobs, Tenant
from service.api.schemas import Voice
from service.api.views import ERRORS

router = APIRouter()


@router.get("/v1/voices", response_model=list[Voice], responses=ERRORS)
def voices(who: Tenant, service: Jobs) -> list[Voice]:
    return [
        Voice(id=v.id, engine=v.engine, language=v.language, gender=v.gender, default=v.default)
        for v in service.voices()
    ]

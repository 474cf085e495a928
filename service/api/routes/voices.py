"""/v1/voices: the voice catalog, filtered by language or locale."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.deps import Jobs, Tenant
from service.api.schemas import Voice, from_record
from service.api.views import ERRORS
from service.domain.errors import InputError

router = APIRouter()


@router.get("/v1/voices", response_model=list[Voice], responses=ERRORS)
def voices(who: Tenant, service: Jobs, language: str | None = None) -> list[Voice]:
    if language is not None and not 2 <= len(language) <= 35:
        raise InputError(
            "language: expected a language or locale such as zh, en-GB", loc=("query", "language")
        )
    return [
        from_record(Voice, v, locale=v.locale or v.language)
        for v in service.voices()
        if language is None or v.speaks(language)
    ]

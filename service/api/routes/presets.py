"""/v1/presets: the job presets a tenant sees (the shipped ones and its own), and saving or
deleting its own. Another tenant's presets do not exist for you."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException
from pydantic import BaseModel, Field

from service.api.deps import Jobs, Tenant
from service.api.views import ERRORS
from service.api.wire_types import FreeObject, answers
from service.jobs.presets import Found, ShippedPreset

router = APIRouter(prefix="/v1/presets", responses=ERRORS, tags=["presets"])
SHIPPED = answers({409: {"description": "a shipped preset: read-only"}})


class PresetOut(BaseModel):
    name: str
    kind: str = Field(description="shipped (voices/presets.json, read-only) or saved (yours)")
    description: str
    source: str = Field(description="where its loudness figure comes from")
    # The options as the client writes them (RenderOptions' JSON, a wire format): any of them.
    values: FreeObject = Field(description="the job options it sets")


def _out(found: Found) -> PresetOut:
    p = found.preset
    return PresetOut(
        name=found.name,
        kind=found.kind,
        description=p.description,
        source=p.source,
        values=p.values(),
    )


@router.get("", response_model=list[PresetOut])
def list_presets(who: Tenant, service: Jobs) -> list[PresetOut]:
    return [_out(f) for f in service.presets.all(who)]


@router.get("/{name}", response_model=PresetOut)
def get_preset(name: str, who: Tenant, service: Jobs) -> PresetOut:
    found = service.presets.get(who, name)
    if found is None:
        raise HTTPException(404, "no such preset")
    return _out(found)


@router.put("/{name}", response_model=PresetOut, responses=SHIPPED)
def put_preset(
    name: str,
    who: Tenant,
    service: Jobs,
    # The client's JSON object, checked by Presets.save (a wire format until then).
    body: Annotated[
        FreeObject,
        Body(description="job options (RenderOptions, without preset) plus description, source"),
    ],
) -> PresetOut:
    """Save (or replace) one of your presets, validated as job options are."""
    try:
        return _out(service.presets.put(who, name, body))
    except ShippedPreset as exc:
        raise HTTPException(409, str(exc)) from None


@router.delete("/{name}", responses=SHIPPED)
def delete_preset(name: str, who: Tenant, service: Jobs) -> dict[str, str]:
    try:
        deleted = service.presets.delete(who, name)
    except ShippedPreset as exc:
        raise HTTPException(409, str(exc)) from None
    if not deleted:
        raise HTTPException(404, "no such preset")
    return {"name": name, "result": "deleted"}

"""/v1/lexicons: a tenant's pronunciation dictionaries. Import one (a W3C PLS file, or JSON
rules), update it (a new version: the older ones stay readable, and a job keeps the one it
was accepted with), read, list, export as PLS, delete. Another tenant's do not exist for you."""

from __future__ import annotations

import json
from pathlib import PurePath

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, ValidationError

from service.api.deps import Jobs, Tenant
from service.api.schemas import from_record
from service.api.views import ERRORS
from service.api.wire_types import RequestBody, request_body
from service.domain.errors import InputError
from service.domain.fields import loc_path
from service.domain.lexicons import (
    MAX_NAME,
    MAX_PLS_BYTES,
    MAX_VALUE,
    Kind,
    LexiconFileError,
    Rule,
    Rules,
)
from service.domain.pls import read_pls, write_pls
from service.domain.speech.lexicon import MAX_WORD
from service.domain.speech.pinyin import looks_like_pinyin
from service.jobs.lexicons import Dictionary, Summary

router = APIRouter(prefix="/v1/lexicons", responses=ERRORS, tags=["lexicons"])
PLS_TYPE = "application/pls+xml"

# Published: the route reads its body itself (JSON or multipart).
REQUEST_BODY: RequestBody = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {
                        "type": "string",
                        "format": "binary",
                        "description": f"a W3C PLS 1.0 document (at most {MAX_PLS_BYTES} bytes)",
                    },
                    "name": {"type": "string", "description": "default: the file's name"},
                },
            }
        },
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["name", "rules"],
                "properties": {
                    "name": {"type": "string", "maxLength": MAX_NAME},
                    "language": {"type": "string", "description": "e.g. zh-CN"},
                    "rules": {"type": "array", "items": {"$ref": "#/components/schemas/Rule"}},
                },
            }
        },
    },
}


class LexiconOut(BaseModel):
    id: str
    version: int = Field(description="this version's number: 1, then one more per update")
    name: str
    language: str | None
    count: int = Field(description="how many rules it holds")
    created: float = Field(description="when this version was made (Unix seconds)")


class LexiconRules(LexiconOut):
    rules: list[Rule] = Field(description="the rules: grapheme, kind, value")


def _out(s: Summary) -> LexiconOut:
    return from_record(LexiconOut, s, count=s.rules)


def _rules_out(d: Dictionary) -> LexiconRules:
    return from_record(LexiconRules, d.summary, count=d.summary.rules, rules=d.rules)


async def _body(request: Request) -> Rules:
    """The dictionary a request gives: a multipart ``file`` (PLS) and ``name``, or JSON."""
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/form-data"):
        return await _from_form(request)
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise InputError(
            "the body is not JSON: send {name, rules} or a multipart PLS file"
        ) from None
    try:
        return Rules.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        msg = str(first["msg"]).removeprefix("Value error, ")
        loc = tuple(first["loc"])
        raise LexiconFileError(f"{loc_path(loc) or 'the body'}: {msg}", loc=loc) from None


async def _from_form(request: Request) -> Rules:
    async with request.form(max_files=1, max_fields=4, max_part_size=MAX_PLS_BYTES + 1) as form:
        part, name = form.get("file"), form.get("name")
        if part is None or isinstance(part, str):
            raise InputError("multipart: a `file` part (a PLS document) is required", loc=("file",))
        data = await part.read(MAX_PLS_BYTES + 1)
        filename = PurePath(part.filename or "lexicon").stem
    try:
        doc = await run_in_threadpool(read_pls, data)
    except LexiconFileError as exc:
        raise LexiconFileError(exc.message, loc=("file",)) from None
    chosen = (name if isinstance(name, str) and name.strip() else filename).strip()
    try:
        return Rules(name=chosen[:MAX_NAME], language=doc.language, rules=doc.rules)
    except ValidationError as exc:
        raise LexiconFileError(f"the PLS file: {exc.errors()[0]['msg']}", loc=("file",)) from None


@router.post(
    "", status_code=201, response_model=LexiconOut, openapi_extra=request_body(REQUEST_BODY)
)
async def create_lexicon(request: Request, who: Tenant, service: Jobs) -> LexiconOut:
    """Import a dictionary, version 1: a PLS file (multipart ``file``, ``name``) or JSON
    rules. 422 names the PLS line or the rule that is wrong."""
    body = await _body(request)
    return _out(await run_in_threadpool(service.lexicons.create, who, body))


@router.get("", response_model=list[LexiconOut])
def list_lexicons(who: Tenant, service: Jobs) -> list[LexiconOut]:
    """Your dictionaries, each at its latest version."""
    return [_out(s) for s in service.lexicons.all(who)]


@router.get("/{lexicon_id}", response_model=LexiconRules)
def get_lexicon(
    lexicon_id: str,
    who: Tenant,
    service: Jobs,
    version: int | None = Query(None, ge=1, description="default: the latest"),
) -> LexiconRules:
    """A dictionary's rules, at a version."""
    return _rules_out(_found(service, who, lexicon_id, version))


@router.put("/{lexicon_id}", response_model=LexiconOut, openapi_extra=request_body(REQUEST_BODY))
async def update_lexicon(
    lexicon_id: str, request: Request, who: Tenant, service: Jobs
) -> LexiconOut:
    """Replace the rules (a PLS file or JSON, as for import): a new version. The older ones
    stay readable, and a job that named one keeps it."""
    body = await _body(request)
    found = await run_in_threadpool(service.lexicons.update, who, lexicon_id, body)
    if found is None:
        raise HTTPException(404, "no such dictionary")
    return _out(found)


class AddedRule(BaseModel):
    grapheme: str = Field(min_length=1, max_length=MAX_WORD)
    value: str = Field(min_length=1, max_length=MAX_VALUE)
    kind: Kind | None = Field(
        None, description="default: pinyin when the value is pinyin with tones, else alias"
    )

    def rule(self) -> Rule:
        kind = self.kind or ("pinyin" if looks_like_pinyin(self.value.strip()) else "alias")
        return Rule(grapheme=self.grapheme, kind=kind, value=self.value)


class Added(BaseModel):
    rules: list[AddedRule] = Field(min_length=1, max_length=100)


@router.post("/{lexicon_id}/rules", response_model=LexiconOut)
def add_rules(lexicon_id: str, body: Added, who: Tenant, service: Jobs) -> LexiconOut:
    """Add rules to the latest version (one of the same word and kind is replaced): a new
    version. The studio's "save to dictionary" uses this."""
    found = service.lexicons.add(who, lexicon_id, [r.rule() for r in body.rules])
    if found is None:
        raise HTTPException(404, "no such dictionary")
    return _out(found)


@router.get("/{lexicon_id}/versions", response_model=list[LexiconOut])
def lexicon_versions(lexicon_id: str, who: Tenant, service: Jobs) -> list[LexiconOut]:
    """Every version of a dictionary, version 1 first."""
    found = service.lexicons.versions(who, lexicon_id)
    if not found:
        raise HTTPException(404, "no such dictionary")
    return [_out(s) for s in found]


@router.get(
    "/{lexicon_id}/pls",
    response_class=Response,
    responses={200: {"content": {PLS_TYPE: {}}, "description": "a PLS 1.0 document"}},
)
def export_lexicon(
    lexicon_id: str,
    who: Tenant,
    service: Jobs,
    version: int | None = Query(None, ge=1, description="default: the latest"),
) -> Response:
    """A dictionary as a W3C PLS 1.0 document (importing it gives the same rules)."""
    found = _found(service, who, lexicon_id, version)
    body = write_pls(found.rules, found.summary.language)
    name = f"lexicon-{lexicon_id}-v{found.summary.version}.pls"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(body, media_type=PLS_TYPE, headers=headers)


@router.delete("/{lexicon_id}")
def delete_lexicon(lexicon_id: str, who: Tenant, service: Jobs) -> dict[str, str]:
    """The dictionary and all its versions. Jobs already accepted keep the rules they use."""
    if not service.lexicons.delete(who, lexicon_id):
        raise HTTPException(404, "no such dictionary")
    return {"id": lexicon_id, "result": "deleted"}


def _found(service: Jobs, who: str, lexicon_id: str, version: int | None) -> Dictionary:
    found = service.lexicons.get(who, lexicon_id, version)
    if found is None:
        which = f" version {version}" if version else ""
        raise HTTPException(404, f"no such dictionary{which}")
    return found

"""How errors become HTTP answers: every narrate error by its kind, an unreachable job store
or object store (or a media tool the server cannot run) as 503 with Retry-After.

Every 422, ours and FastAPI's own request validation alike, is one shape:
``{"detail": [{"code", "msg", "loc"}, ...]}`` (docs/reference/errors.md): ``msg`` is the whole
sentence a person reads, ``loc`` the path in the job spec (or FastAPI's, e.g. ["query",
"limit"]). Every other error answers ``{"detail": "<sentence>"}``."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypedDict

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import Match

from service.domain.errors import (
    BodyTimeout,
    BodyTooLarge,
    IdempotencyConflict,
    InputError,
    InsufficientStorage,
    MediaError,
    QueueUnavailable,
    QuotaExceeded,
    StorageUnavailable,
    StoreUnavailable,
)

RETRY = {"Retry-After": "5"}
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


async def too_large(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, BodyTooLarge)
    detail = f"request body is over the limit of {exc.limit} bytes"
    return JSONResponse({"detail": detail}, 413, headers={"Connection": "close"})


async def no_room(request: Request, exc: Exception) -> JSONResponse:
    """The rest of the body is not read: the connection closes after the answer."""
    return JSONResponse({"detail": str(exc)}, 507, headers={"Connection": "close"})


async def too_slow(request: Request, exc: Exception) -> JSONResponse:
    detail = f"{exc}: upload timed out, nothing was kept"
    return JSONResponse({"detail": detail}, 408, headers={"Connection": "close"})


async def store_down(request: Request, exc: Exception) -> JSONResponse:
    detail = "the job store is unavailable, try again shortly"
    return JSONResponse({"detail": detail}, 503, headers=RETRY)


async def queue_down(request: Request, exc: Exception) -> JSONResponse:
    detail = "the queue is unavailable, try again shortly"
    return JSONResponse({"detail": detail}, 503, headers=RETRY)


async def storage_down(request: Request, exc: Exception) -> JSONResponse:
    detail = "the object storage is unavailable, try again shortly"
    return JSONResponse({"detail": detail}, 503, headers=RETRY)


async def tool_down(request: Request, exc: Exception) -> JSONResponse:
    """ffprobe or ffmpeg timed out or cannot run here: the server's problem, not the file's
    (a file the tool reads and rejects is a MediaInputError, 422)."""
    assert isinstance(exc, MediaError)
    tool = Path(exc.argv[0]).name  # never the server's path to it
    what = "timed out" if exc.returncode is None else "cannot be run on this server"
    detail = f"{tool} {what}, so the upload could not be checked; try again shortly"
    return JSONResponse({"detail": detail}, 503, headers=RETRY)


async def conflict(request: Request, exc: Exception) -> JSONResponse:
    detail = "Idempotency-Key was already used with a different body"
    return JSONResponse({"detail": detail}, 409)


async def over_quota(request: Request, exc: Exception) -> JSONResponse:
    """Retry-After in whole seconds, at least one (when the next token comes, or a short wait
    for a job to start or end)."""
    assert isinstance(exc, QuotaExceeded)
    wait = str(max(1, math.ceil(exc.retry_after)))
    return JSONResponse({"detail": str(exc)}, 429, headers={"Retry-After": wait})


class ProblemItem(TypedDict):
    """One problem of a 422's ``detail`` (the Problem schema's items)."""

    code: str
    msg: str
    loc: list[str | int]


def problem(code: str, msg: str, loc: tuple[str | int, ...] | list[Any]) -> ProblemItem:
    return {"code": code, "msg": msg, "loc": list(loc)}


async def bad_input(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, InputError)
    redact = request.app.state.jobs.redact_paths
    detail = [problem(p.code, redact(p.message), p.loc) for p in exc.problems()]
    return JSONResponse({"detail": detail}, 422)


async def bad_request(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's own validation (query parameters, a JSON body's model) in our shape; the
    message names where, as ours do ("query limit: Input should be ...")."""
    assert isinstance(exc, RequestValidationError)
    detail = []
    for e in exc.errors():
        loc = tuple(e.get("loc", ()))
        where = " ".join(str(x) for x in loc[1:])
        msg = f"{where}: {e['msg']}" if where else str(e["msg"])
        detail.append(problem("request.invalid", msg, loc))
    return JSONResponse({"detail": detail}, 422)


async def http_error(request: Request, exc: Exception) -> Response:
    """FastAPI's answer, with a 405's ``Allow`` naming every method of the path: each
    method is a route of its own, and Starlette named only the first route's."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        routes = request.app.router.routes
        methods = {
            m
            for m in METHODS
            if any(r.matches({**request.scope, "method": m})[0] == Match.FULL for r in routes)
        }
        if methods:
            exc.headers = {**(exc.headers or {}), "Allow": ", ".join(sorted(methods))}
    return await http_exception_handler(request, exc)


# Each error kind and the handler that answers it.
HANDLERS: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
    HTTPException: http_error,
    BodyTooLarge: too_large,
    InsufficientStorage: no_room,
    BodyTimeout: too_slow,
    StoreUnavailable: store_down,
    QueueUnavailable: queue_down,
    StorageUnavailable: storage_down,
    MediaError: tool_down,
    IdempotencyConflict: conflict,
    QuotaExceeded: over_quota,
    InputError: bad_input,
    RequestValidationError: bad_request,
}


def install(app: FastAPI) -> None:
    for kind, handler in HANDLERS.items():
        app.add_exception_handler(kind, handler)

"""How errors become HTTP answers: every narrate error by its kind, an unreachable job store
or object store as 503 with Retry-After."""

from __future__ import annotations

import redis
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.domain.errors import (
    BodyTimeout,
    BodyTooLarge,
    IdempotencyConflict,
    InputError,
    InsufficientStorage,
    QueueUnavailable,
    StorageUnavailable,
)

RETRY = {"Retry-After": "5"}


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


async def conflict(request: Request, exc: Exception) -> JSONResponse:
    detail = "Idempotency-Key was already used with a different body"
    return JSONResponse({"detail": detail}, 409)


async def bad_input(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": request.app.state.jobs.redact_paths(str(exc))}, 422)


def install(app: FastAPI) -> None:
    app.add_exception_handler(BodyTooLarge, too_large)
    app.add_exception_handler(InsufficientStorage, no_room)
    app.add_exception_handler(BodyTimeout, too_slow)
    app.add_exception_handler(redis.RedisError, store_down)
    app.add_exception_handler(QueueUnavailable, queue_down)
    app.add_exception_handler(StorageUnavailable, storage_down)
    app.add_exception_handler(IdempotencyConflict, conflict)
    app.add_exception_handler(InputError, bad_input)

"""Refuse oversize request bodies early: by Content-Length before reading anything, and,
for chunked bodies, as soon as the bytes received pass the limit (not after spooling).
Refuse a body that stops arriving (BodyIdle): a stalled upload holds no connection and no
partial file for ever."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.config import Settings
from service.domain.errors import BodyTimeout, BodyTooLarge


class BodyLimit:
    @staticmethod
    def limits(settings: Settings) -> dict[str, int]:
        """The limits the settings give: a job's script and video (and a MiB for the rest of
        the form), a batch's whole body."""
        return {
            "limit": settings.max_script_bytes + settings.max_video_bytes + (1 << 20),
            "batch_limit": settings.batch_max_bytes + (1 << 20),
        }

    def __init__(self, app: ASGIApp, limit: int, batch_limit: int = 0) -> None:
        self.app = app
        self.limit = limit
        self.batch_limit = max(limit, batch_limit)  # POST /v1/batches carries many files

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"")
        batch = scope["path"].startswith("/v1/batches")
        limit = self.batch_limit if batch else self.limit
        if length.isdigit() and int(length) > limit:
            await reject(send, limit, "batch_max_bytes" if batch else "")
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)  # the app's handler answers 413
            return message

        await self.app(scope, counted, send)


class BodyIdle:
    """A request whose body sends no byte for ``seconds`` raises BodyTimeout where the app
    reads it: the app's handler answers 408, and the route removes what it had written."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return

        whole = False  # after the body's last piece, waiting (for a disconnect) is no stall

        async def timed() -> Message:
            nonlocal whole
            if whole:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.seconds)
            except TimeoutError:
                raise BodyTimeout(self.seconds) from None
            whole = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        await self.app(scope, timed, send)


async def reject(send: Send, limit: int, setting: str = "") -> None:
    named = f" ({setting})" if setting else ""
    detail = f"request body is over the limit of {limit} bytes{named}"
    body = json.dumps({"detail": detail}).encode()
    headers: list[Any] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})

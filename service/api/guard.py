"""What a browser may make of this server. Without keys (loopback) any page the user visits
could otherwise post jobs here (CSRF) or, renaming itself onto 127.0.0.1 (DNS rebinding),
read and delete them. So: only the Host names in NARRATE_ALLOWED_HOSTS are answered, and a
keyless server refuses a state-changing request from another origin and whatever a proxy
forwarded (behind a proxy every client looks local). Every response carries headers
that keep the page out of frames and scripts to this origin."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.config import Settings

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Headers a proxy adds (a plain nginx proxy_pass adds none of them: keys on, say the docs).
FORWARDING = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip", "via")
DEFAULT_PORT = {"http": "80", "https": "443"}

_COMMON = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; connect-src 'self'; script-src 'self'; "
)
# The studio page: no inline script or style attribute; artifacts play from blob: URLs.
PAGE_CSP = _COMMON + "style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:"
# Swagger UI (its own assets, from this server) sets inline styles and data: icons.
DOCS_CSP = _COMMON + "style-src 'self' 'unsafe-inline'; img-src 'self' data:"
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def host_name(value: str) -> str:
    """The name in a Host header: 'Example.com:8000' -> 'example.com', '[::1]:80' -> '[::1]'."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] or value
    return value.split(":", 1)[0].rstrip(".")


def _authority(value: str, scheme: str) -> str:
    name, sep, port = value.lower().rpartition(":")
    if sep and port == DEFAULT_PORT.get(scheme):
        return name  # 'x:80' is 'x' for http
    return value.lower()


def same_origin(origin: str, host: str) -> bool:
    """Whether an Origin header names this very server (scheme://the Host it was sent to)."""
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in DEFAULT_PORT:
        return False  # "null" (a sandboxed frame, a file: page), or no origin at all
    return _authority(rest.rstrip("/"), scheme) == _authority(host, scheme)


def forwarded(headers: Headers) -> str | None:
    return next((h for h in FORWARDING if h in headers), None)


def local_client(scope: Scope) -> bool:
    """A client on this machine, not through a proxy (uvicorn has already replaced a trusted
    proxy's address by X-Forwarded-For's)."""
    client = scope.get("client")
    if not client:
        return False
    try:
        loopback = ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False
    return loopback and forwarded(Headers(scope=scope)) is None


class BrowserGuard:
    """Pure ASGI: refuses before anything is read or run."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.allowed = settings.allowed_host_names
        self.keys_off = not settings.keys_required

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope) if scope["type"] == "http" else None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        await answer(send, status, message)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.allowed is not None and host_name(host) not in self.allowed:
            return 421, (
                f"this server does not answer to the Host {host[:100]!r} (a page that renamed "
                "itself onto this address sends such); add the name to NARRATE_ALLOWED_HOSTS"
            )
        proxy = forwarded(headers)
        if self.keys_off and proxy:
            return 403, (
                f"this request came through a proxy ({proxy} header), and this server runs "
                "without API keys, which is safe only for clients on its own machine: turn "
                "keys on (NARRATE_REQUIRE_KEYS=1, then narrate keys create NAME)"
            )
        if self.keys_off and scope["method"] in UNSAFE:
            # (With keys, a write needs an Authorization header, which another site's page
            # can only send after a CORS preflight this API never grants.)
            origin, site = headers.get("origin"), headers.get("sec-fetch-site")
            if origin is not None and not same_origin(origin, host):
                sender = f"from {origin[:100]}"
            elif site not in (None, "same-origin", "none"):
                sender = f"Sec-Fetch-Site: {site[:20]}"
            else:
                return None
            return 403, (
                f"a {scope['method']} {sender} is refused: only this server's own pages may "
                "change anything here (a page on another site cannot submit or delete jobs)"
            )
        return None


class SecurityHeaders:
    """nosniff, no framing, no referrer, and a Content-Security-Policy on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope["path"].startswith("/docs") else PAGE_CSP

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(b"content-security-policy", csp.encode()), *SECURITY_HEADERS]
                message["headers"] = [
                    *message.get("headers", []),
                    *((n, v) for n, v in extra if n not in present),
                ]
            await send(message)

        await self.app(scope, receive, with_headers)


async def answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    headers: list[Any] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

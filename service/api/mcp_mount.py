"""The MCP server (service/api/mcp_server.py) at ``/mcp`` on the API, streamable HTTP, stateless
(any API process answers any request). The caller's tenant is its API key's, read from
``Authorization: Bearer <key>`` on each request; a request without a valid key is a 401
before the SDK sees it, where keys are required. Origins are narrate's BrowserGuard's
concern, as on every route, so the SDK's own host check (made for a localhost server) is
off: behind a proxy the Host is the proxy's name."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from service.api.mcp_server import Tools, build
from service.config import Settings
from service.jobs import JobService
from service.jobs.keys import KeyStore

PATH = "/mcp"


def key_tenant(keys: KeyStore, settings: Settings, authorization: str | None) -> str | None:
    """The tenant of ``Bearer <key>``; "local" where keys are not required and none is sent."""
    scheme, _, key = (authorization or "").partition(" ")
    if scheme.lower() == "bearer" and key.strip():
        return keys.tenant(key.strip())
    return None if settings.keys_required else "local"


class McpRoute:
    """The ``/mcp`` endpoint: a 401 for a request whose key names no tenant (as deps.tenant
    answers on REST), else the SDK's session manager of the app's current lifespan."""

    def __init__(self, server: MCPServer, keys: KeyStore, settings: Settings) -> None:
        self.server, self.keys, self.settings = server, keys, settings
        self.users = 0  # lifespans running at once (tests enter one app's twice)
        self.exit: Callable[[], Awaitable[object]] | None = None

    def fresh(self) -> None:
        """A new session manager: the SDK's runs once per instance, an app's lifespan may
        run again (a second TestClient, a restarted server in one process)."""
        self.server.streamable_http_app(  # makes the manager; its own Starlette app is unused
            streamable_http_path=PATH,
            stateless_http=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            host="0.0.0.0",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if key_tenant(self.keys, self.settings, headers.get("authorization")) is None:
            said = "invalid API key" if headers.get("authorization") else "an API key is required"
            response = JSONResponse({"detail": said}, 401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        await StreamableHTTPASGIApp(self.server.session_manager)(scope, receive, send)


def install(app: FastAPI, settings: Settings, service: JobService, keys: KeyStore) -> McpRoute:
    """Route ``/mcp`` to the MCP server; its session manager runs in ``running``."""

    def tenancy(ctx: Context) -> str:
        found = key_tenant(keys, settings, (ctx.headers or {}).get("authorization"))
        if found is None:
            raise ToolError("an API key is required (Authorization: Bearer <key>)")
        return found

    route = McpRoute(build(Tools(service, settings, tenancy)), keys, settings)
    # MCP's JSON-RPC, not an OpenAPI operation: docs/guides/mcp.md documents it
    methods = ["GET", "POST", "DELETE"]
    app.router.routes.append(Route(PATH, endpoint=route, methods=methods, include_in_schema=False))
    return route


@asynccontextmanager
async def running(route: McpRoute) -> AsyncIterator[None]:
    """The session manager runs while the first of the app's lifespans does."""
    if route.users == 0:
        route.fresh()
        manager = route.server.session_manager.run()
        await manager.__aenter__()
        route.exit = lambda: manager.__aexit__(None, None, None)
    route.users += 1
    try:
        yield
    finally:
        route.users -= 1
        if route.users == 0 and route.exit is not None:
            await route.exit()
            route.exit = None

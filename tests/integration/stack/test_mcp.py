"""The MCP server as an agent meets it, through the official SDK's own client: `narrate mcp`
spawned on stdio (submitting to the stack's Redis, rendered by its workers) and the
streamable HTTP endpoint at /mcp on the stack's API with an API key. Each lists the tools
and renders the bundled GAGAR script to a finished job whose artifacts are downloadable."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.support.data import GAGAR_EXAMPLE
from tests.support.stack import Stack

TOOLS = {
    "list_voices",
    "list_presets",
    "submit_job",
    "render_script",
    "get_job",
    "get_artifacts",
    "rerender_segment",
}
WAIT = 900  # seconds render_script may wait: two workers on a loaded 2-core host


async def render_gagar(client: Client) -> dict[str, Any]:
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} >= TOOLS
    resources = {str(r.uri) for r in (await client.list_resources()).resources}
    assert "narrate://examples/gagar-grpo-quality-ranking.md" in resources
    assert "narrate://docs/script-format" in resources
    script = GAGAR_EXAMPLE.read_text(encoding="utf-8")
    result = await client.call_tool(
        "render_script",
        {"script": script, "options": {"engine": "espeak"}, "timeout_seconds": WAIT},
        read_timeout_seconds=WAIT + 60,
    )
    assert not result.is_error, result.content
    job: dict[str, Any] = result.structured_content or {}
    assert job["status"] == "succeeded", job
    links = await client.call_tool("get_artifacts", {"job_id": job["id"]})
    assert {"narration.wav", "subtitles.srt"} <= set(links.structured_content or {})
    return job


def test_stdio_narrate_mcp_renders_the_gagar_script(stack: Stack) -> None:
    server = StdioServerParameters(
        command=str(Path(sys.executable).with_name("narrate")),
        args=["mcp", "--tenant", "alpha"],
        env={**stack.env, "NARRATE_PUBLIC_URL": stack.url},  # the links the tools give
    )

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            return await render_gagar(client)

    job = asyncio.run(run())
    # the job is the tenant's, on the service: its REST API serves the narration
    key = stack.keys["alpha"]
    link = job["links"]["artifacts"]["narration.wav"]
    wav = httpx.get(link, headers={"Authorization": f"Bearer {key}"}, timeout=60)
    assert wav.status_code == 200 and wav.content[:4] == b"RIFF"


def test_streamable_http_mcp_renders_the_gagar_script(stack: Stack) -> None:
    key = stack.keys["beta"]

    async def run() -> dict[str, Any]:
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {key}"}, timeout=WAIT + 60
        ) as http:
            transport = streamable_http_client(f"{stack.url}/mcp", http_client=http)
            async with Client(transport) as client:
                job = await render_gagar(client)
                seen = await client.call_tool("get_job", {"job_id": job["id"]})
                assert (seen.structured_content or {})["progress"] == 1.0
                return job

    job = asyncio.run(run())
    other = httpx.get(
        f"{stack.url}/v1/jobs/{job['id']}",
        headers={"Authorization": f"Bearer {stack.keys['alpha']}"},
        timeout=30,
    )
    assert other.status_code == 404  # beta's job, made through /mcp: alpha does not see it


def test_http_mcp_without_a_key_is_refused(stack: Stack) -> None:
    r = httpx.post(f"{stack.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("tool", ["get_job", "get_artifacts"])
def test_a_job_of_another_tenant_is_an_error_naming_it(stack: Stack, tool: str) -> None:
    async def run() -> Any:
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {stack.keys['alpha']}"}, timeout=60
            ) as http,
            Client(streamable_http_client(f"{stack.url}/mcp", http_client=http)) as c,
        ):
            return await c.call_tool(tool, {"job_id": "0" * 32})

    result = asyncio.run(run())
    assert result.is_error and "no job" in str(result.content[0])

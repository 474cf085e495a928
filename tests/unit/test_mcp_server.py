"""The MCP tools in-process on the in-memory wiring, through the SDK's own Client: what an
agent lists, a job submitted and worked to the end, its artifacts' links, a segment
re-rendered, and errors that name the job or the segment; the resources read back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client

from service.api.mcp_server import Tools, build
from tests.support.fleet import Fleet, make_fleet

SCRIPT = "[Segment 1 · 4 s Hook] Hello there, this is a test.\n\n[Segment 2 · 3 s End] Goodbye."


def with_client(
    fleet: Fleet, run: Callable[[Client], Awaitable[Any]], tenant: str = "local"
) -> Any:
    server = build(Tools(fleet.service, fleet.settings, lambda ctx: tenant))

    async def main() -> Any:
        async with Client(server) as client:
            return await run(client)

    return asyncio.run(main())


def test_a_job_submitted_through_the_tools_renders_and_links_its_artifacts(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)

    async def run(c: Client) -> tuple[Any, ...]:
        sent = await c.call_tool("submit_job", {"script": SCRIPT, "options": {"engine": "espeak"}})
        job_id = (sent.structured_content or {})["id"]
        await asyncio.to_thread(fleet.work)
        job = await c.call_tool("get_job", {"job_id": job_id})
        links = await c.call_tool("get_artifacts", {"job_id": job_id})
        again = await c.call_tool(
            "rerender_segment", {"job_id": job_id, "segment": 2, "text": "Bye now."}
        )
        return job.structured_content, links.structured_content, again.structured_content

    job, links, again = with_client(fleet, run)
    assert job["status"] == "succeeded" and job["progress"] == 1.0 and job["segments"] == 2
    assert links["narration.wav"].endswith(f"/v1/jobs/{job['id']}/artifacts/narration.wav")
    child = fleet.service.owned(again["id"], "local")
    assert child is not None and child.parent == job["id"]
    assert [s.text for s in child.spec.segments][1] == "Bye now."


def test_errors_name_the_job_and_the_segment(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)

    async def run(c: Client) -> tuple[Any, ...]:
        sent = await c.call_tool("submit_job", {"script": SCRIPT, "options": {"engine": "espeak"}})
        job_id = (sent.structured_content or {})["id"]
        missing = await c.call_tool("get_job", {"job_id": "f" * 32})
        segment = await c.call_tool(
            "rerender_segment", {"job_id": job_id, "segment": 9, "text": "x"}
        )
        bad = await c.call_tool("submit_job", {"script": "no segments here"})
        return missing, segment, bad

    missing, segment, bad = with_client(fleet, run)
    assert missing.is_error and "no job" in missing.content[0].text
    assert (
        segment.is_error
        and "segment 9" in segment.content[0].text
        and "1..2" in segment.content[0].text
    )
    assert bad.is_error and "no narration segments" in bad.content[0].text


def test_another_tenants_job_does_not_exist_for_the_caller(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)

    async def submit(c: Client) -> str:
        sent = await c.call_tool("submit_job", {"script": SCRIPT})
        return str((sent.structured_content or {})["id"])

    job_id = with_client(fleet, submit, tenant="alpha")

    async def look(c: Client) -> Any:
        return await c.call_tool("get_job", {"job_id": job_id})

    assert with_client(fleet, look, tenant="beta").is_error


def test_the_tools_and_resources_an_agent_lists(tmp_path: Path) -> None:
    async def run(c: Client) -> tuple[Any, ...]:
        tools = {t.name for t in (await c.list_tools()).tools}
        uris = {str(r.uri) for r in (await c.list_resources()).resources}
        doc = await c.read_resource("narrate://docs/script-format")
        voices = await c.call_tool("list_voices", {"language": "zh", "engine": "kokoro"})
        presets = await c.call_tool("list_presets", {})
        return tools, uris, doc, voices.structured_content, presets.structured_content

    tools, uris, doc, voices, presets = with_client(make_fleet(tmp_path), run)
    assert tools == {"list_voices", "list_presets", "submit_job", "render_script", "get_job",
                     "get_artifacts", "rerender_segment"}  # fmt: skip
    assert "narrate://examples/gagar-grpo-quality-ranking.md" in uris
    assert doc.contents[0].text.startswith("# Script format")
    assert {v["id"] for v in voices["result"]} >= {"zf_xiaoxiao", "zf_xiaoyi"}
    assert all(v["engine"] == "kokoro" for v in voices["result"])
    assert presets["result"] and all("values" in p for p in presets["result"])

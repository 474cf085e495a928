"""narrate as an MCP server (the official ``mcp`` SDK): tools an agent calls to list voices
and presets, submit or render a script, follow a job, get its artifacts' links and re-render
one segment; the bundled examples and the script format as resources. The tools call the
job service the REST routes call (the same door: quotas, planning, the queue), never HTTP.

``narrate mcp`` serves it on stdio for one tenant (``--tenant``); the API mounts it at
``/mcp`` (streamable HTTP), where each request's ``Authorization: Bearer <key>`` names the
tenant, as on every route (docs/guides/mcp.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from typing_extensions import TypedDict  # pydantic validates these below 3.12

from service.api.wire_types import FreeObject
from service.config import ROOT, Settings
from service.domain.errors import NarrateError
from service.domain.job import Job
from service.domain.script import parse_script
from service.domain.spec import RenderOptions, spec_from_data
from service.jobs import JobService, Submission
from service.jobs.rerender import rerender

EXAMPLES = ROOT / "examples"
SCRIPT_FORMAT = ROOT / "docs" / "guides" / "script-format.md"
MAX_WAIT = 3600.0  # seconds render_script may wait for its job
POLL = 0.5  # seconds between two looks at a rendering job's record
Tenancy = Callable[[Context], str]  # who calls: from the request's key, or the stdio tenant


# What the tools return, as the agent reads it (the SDK derives each tool's output schema).
class JobLinks(TypedDict):
    self: str
    artifacts: dict[str, str]  # artifact name -> its URL


class JobView(TypedDict):
    id: str
    status: str
    progress: float
    stage: str
    segments: int
    error: str | None
    warnings: list[str]
    artifacts: list[str]
    links: JobLinks


class VoiceView(TypedDict):
    id: str
    engine: str
    language: str
    gender: str
    default: bool


class PresetView(TypedDict):
    name: str
    kind: str  # shipped or saved
    description: str
    values: FreeObject  # wire format: the render options it sets, as a job's JSON holds them


class Tools:
    """The tools' work, on the job service, for the tenant ``tenancy`` names."""

    def __init__(self, service: JobService, settings: Settings, tenancy: Tenancy) -> None:
        self.service = service
        self.settings = settings
        self.tenancy = tenancy

    def links(self, job: Job) -> JobLinks:
        base = f"{self.settings.public_url.rstrip('/')}/v1/jobs/{job.id}"
        return {"self": base, "artifacts": {n: f"{base}/artifacts/{n}" for n in job.artifacts}}

    def view(self, job: Job) -> JobView:
        return {
            "id": job.id,
            "status": job.status,
            "progress": round(job.progress, 3),
            "stage": job.stage,
            "segments": job.segments_total,
            "error": job.error.message if job.error else None,
            "warnings": [w.message for w in job.warnings],
            "artifacts": list(job.artifacts),
            "links": self.links(job),
        }

    def job(self, tenant: str, job_id: str) -> Job:
        found = self.service.owned(job_id, tenant)
        if found is None:
            raise ToolError(f"no job {job_id!r} (of this tenant)")
        return found

    def submit(self, tenant: str, script: str, options: object) -> Job:
        """``options``: as the agent sent them, validated here as POST /v1/jobs does."""
        spec = parse_script(script)
        opts = RenderOptions.model_validate(options or {})
        job, _ = self.service.submit(Submission(tenant, self.service.new_id(), spec, opts))
        return job

    def rerender(self, tenant: str, job_id: str, segment: int, text: str) -> Job:
        parent = self.job(tenant, job_id)
        data = parent.spec.model_dump(mode="json")
        segments = [dict(s) for s in data.get("segments", [])]
        if not 1 <= segment <= len(segments):
            raise ToolError(f"segment {segment}: the job has segments 1..{len(segments)}")
        segments[segment - 1]["text"] = text
        data["segments"] = segments
        return rerender(self.service, parent, self.service.new_id(), spec_from_data(data), None)


async def _call(fn: Callable[[], Any]) -> Any:
    """A blocking service call (Redis, planning) off the event loop; narrate's own errors
    reach the agent as the tool's error, in the words the REST API uses."""
    try:
        return await anyio.to_thread.run_sync(fn)
    except NarrateError as exc:
        raise ToolError(str(exc)) from None
    except ValueError as exc:  # pydantic's, for options
        raise ToolError(str(exc)) from None


def build(tools: Tools) -> MCPServer:
    server = MCPServer(
        "narrate",
        instructions="Narration and subtitles from a script: list_voices, then render_script "
        "(or submit_job and get_job); the script format is the resource narrate://docs/script-format.",
    )
    _register_reads(server, tools)
    _register_jobs(server, tools)
    _register_resources(server)
    return server


def _register_reads(server: MCPServer, tools: Tools) -> None:
    @server.tool()
    async def list_voices(
        language: str | None = None, engine: str | None = None
    ) -> list[VoiceView]:
        """The voice catalog (id, engine, language, gender, default), filtered by language
        (zh, en, en-GB) and engine (kokoro, edge, espeak, fastspeech2)."""
        return [
            {
                "id": v.id,
                "engine": v.engine,
                "language": v.language,
                "gender": v.gender,
                "default": v.default,
            }
            for v in tools.service.voices()
            if (language is None or v.speaks(language)) and (engine is None or v.engine == engine)
        ]

    @server.tool()
    async def list_presets(ctx: Context) -> list[PresetView]:
        """The job presets this tenant can name in options.preset: shipped and its own."""
        found = await _call(lambda: tools.service.presets.all(tools.tenancy(ctx)))
        return [
            {
                "name": f.name,
                "kind": f.kind,
                "description": f.preset.description,
                "values": f.preset.values(),
            }
            for f in found
        ]

    @server.tool()
    async def get_job(job_id: str, ctx: Context) -> JobView:
        """A job's status (queued, running, succeeded, failed, canceled), progress 0..1,
        stage, warnings and links."""
        return tools.view(await _call(lambda: tools.job(tools.tenancy(ctx), job_id)))

    @server.tool()
    async def get_artifacts(job_id: str, ctx: Context) -> dict[str, str]:
        """Links to a job's artifacts by name (narration.wav, subtitles.srt, manifest.json,
        ...); download them with the same API key."""
        job = await _call(lambda: tools.job(tools.tenancy(ctx), job_id))
        return tools.links(job)["artifacts"]


def _register_jobs(server: MCPServer, tools: Tools) -> None:
    @server.tool()
    async def submit_job(
        script: str,
        ctx: Context,
        options: FreeObject | None = None,  # wire format: options as POST /v1/jobs takes
    ) -> JobView:
        """Submit a script (Markdown as in the script format, or a JSON job spec) with render
        options (engine, voice, preset, ... as POST /v1/jobs takes them); returns the job at
        once: follow it with get_job."""
        tenant = tools.tenancy(ctx)
        return tools.view(await _call(lambda: tools.submit(tenant, script, options)))

    @server.tool()
    async def render_script(
        script: str,
        ctx: Context,
        options: FreeObject | None = None,  # wire format, as submit_job's
        timeout_seconds: float = 600,
    ) -> JobView:
        """submit_job, then wait until the job is done (at most timeout_seconds, 3600 at
        most), reporting its progress; returns its status and artifact links."""
        tenant = tools.tenancy(ctx)
        job = await _call(lambda: tools.submit(tenant, script, options))
        deadline = time.monotonic() + min(max(timeout_seconds, 1.0), MAX_WAIT)
        job_id = job.id
        while not job.terminal and time.monotonic() < deadline:
            await ctx.report_progress(job.progress, 1.0, job.stage or job.status)
            await anyio.sleep(POLL)
            job = await _call(lambda: tools.job(tenant, job_id))
        return tools.view(job)

    @server.tool()
    async def rerender_segment(job_id: str, segment: int, text: str, ctx: Context) -> JobView:
        """A new job from job_id with segment (1-based) saying ``text`` instead, the rest as
        before (the unchanged segments come from the TTS cache); follow it with get_job."""
        tenant = tools.tenancy(ctx)
        return tools.view(await _call(lambda: tools.rerender(tenant, job_id, segment, text)))


def _register_resources(server: MCPServer) -> None:
    def reader(path: Path) -> Callable[[], str]:
        return lambda: path.read_text(encoding="utf-8")

    for path in sorted(EXAMPLES.rglob("*.md")):
        name = path.relative_to(EXAMPLES).as_posix()
        server.resource(
            f"narrate://examples/{name}",
            name=name,
            description="a bundled example script (Markdown)",
            mime_type="text/markdown",
        )(reader(path))
    server.resource(
        "narrate://docs/script-format",
        name="script-format",
        description="the script format: Markdown segments, timing, voices, readings",
        mime_type="text/markdown",
    )(reader(SCRIPT_FORMAT))

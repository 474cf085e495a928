"""``narrate mcp``: the MCP server (service/api/mcp_server.py) on stdio, for an agent that starts
it as a process. It submits to the running service's Redis (NARRATE_REDIS_URL, or the one
``narrate serve`` embeds) as tenant ``--tenant``; the service's workers render the jobs."""

from __future__ import annotations

import argparse
import logging
import re
import sys

from service.config import get_settings

_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def _tenant(value: str) -> str:
    if not _TENANT.match(value):
        raise argparse.ArgumentTypeError(
            f"{value!r}: a tenant is lowercase letters, digits, '-' or '_' (max 64)"
        )
    return value


def cmd_mcp(args: argparse.Namespace) -> int:
    from service import wiring
    from service.api.mcp_server import Tools, build

    # stdout is the protocol's: every log line goes to stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    settings = get_settings()
    tenant: str = args.tenant
    server = build(Tools(wiring.job_service(settings), settings, lambda ctx: tenant))
    server.run("stdio")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mc = sub.add_parser(
        "mcp", help="serve the MCP tools (voices, presets, jobs, artifacts) on stdio for an agent"
    )
    mc.add_argument(
        "--tenant",
        type=_tenant,
        default="local",
        help="the tenant whose jobs the tools submit and see (default: local)",
    )
    mc.set_defaults(func=cmd_mcp)

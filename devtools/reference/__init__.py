"""The reference pages under docs/reference/, written from the code so that they cannot drift
from it: settings from service/config.py's Settings (its comments are the descriptions), the
CLI from its argparse parser, the HTTP API from the app's OpenAPI document, the error and
warning codes from the code that raises them. ``python -m devtools.reference`` writes them;
``--check`` only compares (tests/unit/test_reference_docs.py does the same in memory)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from devtools.reference import api, cli, errors, settings

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reference"

# page name -> its writer; each returns the whole page's Markdown
PAGES: dict[str, Callable[[], str]] = {
    "cli.md": cli.page,
    "settings.md": settings.page,
    "api.md": api.page,
    "errors.md": errors.page,
}


def generate() -> dict[str, str]:
    """Every reference page by file name, as the code says it now."""
    return {name: write() for name, write in PAGES.items()}


def stale(pages: dict[str, str]) -> list[str]:
    """The committed pages that differ from ``pages`` (or are missing), by path."""
    return [
        f"docs/reference/{name}"
        for name, text in pages.items()
        if not (OUT / name).is_file() or (OUT / name).read_text(encoding="utf-8") != text
    ]

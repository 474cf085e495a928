"""docs/reference/ is written from the code (devtools/reference): a committed page that
differs from what the code says now is stale, and each page names every command, endpoint,
setting and code the code has, counted here from the code itself, not from the generator's
own walk where another way exists."""

from __future__ import annotations

import re

import pytest

from devtools import reference
from devtools.reference import api, cli, errors
from devtools.reference.error_notes import ERRORS, WARNINGS
from service.config import Settings


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return reference.generate()


def test_committed_pages_are_what_the_code_says(pages: dict[str, str]) -> None:
    stale = reference.stale(pages)
    assert not stale, f"stale: {', '.join(stale)} (regenerate: python -m devtools.reference)"


def test_every_setting_is_documented(pages: dict[str, str]) -> None:
    documented = set(re.findall(r"^\| `(NARRATE_[A-Z0-9_]+)` \| `", pages["settings.md"], re.M))
    fields = {f"NARRATE_{name.upper()}" for name in Settings.model_fields}
    assert documented >= fields, f"settings missing: {sorted(fields - documented)}"
    assert len(fields) > 80  # the page lists the model's fields, not a few of them


def test_every_command_is_documented(pages: dict[str, str]) -> None:
    documented = set(re.findall(r"^## narrate (.+?) \{#", pages["cli.md"], re.M))
    found = {" ".join(path) for path, _, _ in cli.commands()}
    assert documented == found
    assert {"render", "serve", "batch", "keys create", "voices install"} <= found


def test_every_endpoint_is_documented(pages: dict[str, str]) -> None:
    documented = set(re.findall(r"^### `([A-Z]+) (\S+)`", pages["api.md"], re.M))
    _, routes = api.app_routes()  # the app's routes, not its OpenAPI document
    assert documented == routes, f"undocumented: {sorted(routes - documented)}"
    assert ("POST", "/v1/jobs") in routes and ("GET", "/v1/batches/{batch_id}/events") in routes


def test_every_error_and_warning_code_is_documented(pages: dict[str, str]) -> None:
    raised = set(errors.found())
    noted = set(ERRORS) | set(WARNINGS)
    assert not raised - noted, f"codes with no note in error_notes.py: {sorted(raised - noted)}"
    assert not noted - raised, f"notes for codes nothing raises: {sorted(noted - raised)}"
    tables = pages["errors.md"].split("\n## Errors\n", 1)[1]
    documented = set(re.findall(r"^\| `([a-z_.]+)` \|", tables, re.M))
    assert documented == raised

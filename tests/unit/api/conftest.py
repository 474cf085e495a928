"""The fast tier's API fixtures: a fleet in-process (tests/support/fleet.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fleet import Fleet, make_fleet


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    yield make_fleet(tmp_path)


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[tuple[Fleet, str, str]]:
    """A fleet that requires API keys, with a key for tenants alpha and beta."""
    f = make_fleet(tmp_path, require_keys=True)
    keys = f.keys
    yield f, keys.create("alpha"), keys.create("beta")

"""One stack for the session (tests/support/stack.py starts it), shared by every module of
this folder that needs no settings of its own: under `pytest -n 3 --dist loadfile` each xdist
worker starts it once instead of once a module (a start is ~7 CPU s). Its tests use tenants
or ids of their own (shared.own_tenant) and leave no job running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.stack.shared import MAX_MUSIC_BYTES, MAX_VIDEO_BYTES
from tests.support.stack import Stack, start_stack


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(
        tmp_path_factory.mktemp("stack"),
        max_video_bytes=MAX_VIDEO_BYTES,
        max_music_bytes=MAX_MUSIC_BYTES,
    )
    yield s
    s.stop()

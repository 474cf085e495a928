"""A stack shared by a module's tests (tests/support/stack.py starts it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.stack import Stack, start_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("stack"), max_video_bytes=3_000_000)
    yield s
    s.stop()

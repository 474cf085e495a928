"""A real stack for service tests (devtools/stack.py): redis-server on its own port (AOF),
Celery worker processes and uvicorn, each a subprocess that the fixtures start and stop.

``start_stack(..., faults="segment_sleep=1.5,crash_on=WORD")`` runs the workers and the API
from tests/service/faults.py, which inject those faults; production code has no such hooks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools import stack as devstack
from devtools.stack import Stack, free_port, submit, wait_for

__all__ = ["Stack", "free_port", "start_stack", "submit", "wait_for"]


def start_stack(tmp: Path, workers: int = 2, faults: str = "", **settings: Any) -> Stack:
    if not faults:
        return devstack.start_stack(tmp, workers, **settings)
    return devstack.start_stack(
        tmp,
        workers,
        worker_app="tests.service.faults:worker_app",
        api_app="tests.service.faults:api_app",
        env={"NARRATE_TEST_FAULTS": faults},
        **settings,
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("stack"), max_video_bytes=3_000_000)
    yield s
    s.stop()

"""`narrate worker` supervises its Celery worker: the worker's main process SIGKILLed (as when
kombu's restore ended it, round four) comes back by itself and beats again; SIGTERM to
`narrate worker` stops the worker and the supervisor, no process left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.stack import ROOT, until
from tests.support.stack import Stack, start_stack


@pytest.fixture(scope="module")
def api_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("supervised"), workers=0)
    yield s
    s.stop()


def beating(stack: Stack) -> set[int]:
    """The pids of the worker mains beating now ("<hostname> <pid>")."""
    return {int(w.rsplit(" ", 1)[1]) for w in stack.redis().hkeys("narrate:workers")}


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_killed_worker_comes_back_and_sigterm_ends_both(api_only: Stack) -> None:
    log = (api_only.data_dir / "supervised.log").open("wb")
    sup = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "worker", "--name", "sup"],
        env=api_only.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        (first,) = until(lambda: children(sup.pid), 60, "the supervised worker")
        until(lambda: first in beating(api_only), 90, "its heartbeat")
        os.kill(first, signal.SIGKILL)
        again = until(lambda: [p for p in children(sup.pid) if p != first], 60, "a new worker")
        until(lambda: again[0] in beating(api_only), 90, "the new worker's heartbeat")
        assert sup.poll() is None
        assert "ended unasked" in (api_only.data_dir / "supervised.log").read_text()
        sup.send_signal(signal.SIGTERM)
        sup.wait(timeout=60)
        assert not Path(f"/proc/{again[0]}").exists()  # the worker left before the supervisor
        until(lambda: again[0] not in beating(api_only), 30, "the worker's heartbeat removed")
    finally:
        if sup.poll() is None:
            sup.kill()

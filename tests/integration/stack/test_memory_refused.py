"""``NARRATE_REDIS_URL=memory://`` is one process's stores and queue: every door that runs the
service in processes of its own refuses it, naming the setting, instead of starting a fleet
whose API and workers would never share a job (a submission that waits for ever, unseen)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.data import ROOT

DOORS = {
    "narrate serve": ["-m", "service.cli.main", "serve", "--workers", "1"],
    "narrate worker": ["-m", "service.cli.main", "worker"],
    "narrate reconcile": ["-m", "service.cli.main", "reconcile", "--once"],
    "celery worker": ["-m", "celery", "-A", "workers.celery_app", "worker", "--pool", "solo"],
    "uvicorn": ["-m", "uvicorn", "service.api.main:app", "--port", "0"],
}


@pytest.mark.parametrize("door", DOORS)
def test_a_door_that_runs_apart_refuses_memory(door: str, tmp_path: object) -> None:
    env = {**os.environ, "NARRATE_REDIS_URL": "memory://", "NARRATE_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, *DOORS[door]],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,  # a hang guard: the refusal comes before anything starts
    )
    assert done.returncode != 0, done.stdout
    assert "NARRATE_REDIS_URL=memory://" in done.stderr, done.stderr
    assert "redis://" in done.stderr  # what to set instead
    assert "Traceback" not in done.stderr, done.stderr

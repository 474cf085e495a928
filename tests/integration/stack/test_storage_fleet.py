"""Round four, "keys per host", its second half: with local storage, a job accepted by the API
of host 2 and run by a worker of host 1 could not be downloaded from host 2 (404). Each worker
now says where it publishes (its storage's identity: a random id kept in the artifacts
directory, or the S3 bucket and prefix), and an API whose workers publish elsewhere is not
ready: /readyz 503 with checks.storage false, and its log names the workers and the fix."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devtools.stack import ROOT, until
from tests.support.stack import Stack, free_port, start_stack


@pytest.fixture(scope="module")
def two_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str, Path]]:
    one = start_stack(tmp_path_factory.mktemp("host1"), workers=1)
    two_dir = tmp_path_factory.mktemp("host2")
    port = free_port()
    log = (two_dir / "api.log").open("wb")
    api = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "api", "--port", str(port)],
        env=one.env | {"NARRATE_DATA_DIR": str(two_dir)}, cwd=ROOT, stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield one, f"http://127.0.0.1:{port}", two_dir
    finally:
        api.terminate()
        api.wait(timeout=15)
        one.stop()


def readyz(url: str) -> httpx.Response | None:
    try:
        return httpx.get(f"{url}/readyz", timeout=10)
    except httpx.HTTPError:
        return None


def test_an_api_whose_workers_publish_elsewhere_is_not_ready(
    two_dirs: tuple[Stack, str, Path],
) -> None:
    one, two, two_dir = two_dirs
    here = readyz(one.url)
    assert here is not None and here.status_code == 200 and here.json()["checks"]["storage"]
    there = until(lambda: readyz(two), 60, "host 2's API")
    assert there.status_code == 503
    checks = there.json()["checks"]
    assert (checks["redis"], checks["workers"], checks["storage"]) == (True, 1, False)
    said = (two_dir / "api.log").read_text()
    assert "publish artifacts where this API cannot serve them" in said
    assert "NARRATE_STORAGE_URL" in said

"""Two API "machines" (two processes, two data dirs) over one Redis: the tenants, their keys
and quotas are the fleet's, not a host's. A key made with `narrate keys` on one works on the
other, a revoke is refused on the other with no delay to wait out (nothing is cached), a
tenant's --max-queued counts its jobs on both, and an earlier version's keys.json is imported
once by the host that has it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devtools.stack import ROOT, until
from service.jobs.keys import digest
from tests.support.stack import Stack, free_port, start_stack, submit


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str, Path]]:
    """Host 1: Redis and an API (no workers: jobs stay queued). Host 2: an API of its own
    data dir, with a keys.json of an earlier version, on host 1's Redis."""
    one = start_stack(tmp_path_factory.mktemp("host1"), workers=0)
    two_dir = tmp_path_factory.mktemp("host2")
    legacy = {digest("nk_legacy"): {"tenant": "legacy", "created": 1.0}}
    (two_dir / "keys.json").write_text(json.dumps(legacy))
    port = free_port()
    env = one.env | {"NARRATE_DATA_DIR": str(two_dir)}
    log = (two_dir / "api.log").open("wb")
    api = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "api", "--port", str(port)],
        env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: healthy(url), 60, "host 2's API")
        yield one, url, two_dir
    finally:
        api.terminate()
        api.wait(timeout=15)
        one.stop()


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def keys_cli(stack: Stack, *args: str) -> str:
    """`narrate keys ...` on host 1 (its data dir, the fleet's NARRATE_REDIS_URL)."""
    done = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "keys", *args],
        env=stack.env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout


def status(url: str, key: str) -> int:
    return httpx.get(f"{url}/v1/jobs", headers={"Authorization": f"Bearer {key}"}).status_code


def test_a_key_made_on_one_host_works_on_the_other_and_its_revoke_too(
    hosts: tuple[Stack, str, Path],
) -> None:
    one, two, _ = hosts
    key = keys_cli(one, "create", "roamer").strip()
    assert status(two, key) == 200 and status(one.url, key) == 200
    keys_cli(one, "revoke", "roamer")
    started = time.monotonic()
    assert status(two, key) == 401  # the first request after the revoke: no cache to expire
    print(f"revoked on host 1, refused on host 2 after {time.monotonic() - started:.3f} s")


def test_max_queued_counts_a_tenants_jobs_on_every_host(hosts: tuple[Stack, str, Path]) -> None:
    one, two, _ = hosts
    key = keys_cli(one, "create", "capped", "--max-queued", "2").strip()
    clients = [
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)
        for url in (one.url, two)
    ]
    assert submit(clients[0], "[段 1 · 2 秒] 一。").status_code == 202
    assert submit(clients[1], "[段 1 · 2 秒] 二。").status_code == 202
    for client in clients:  # the third is over the limit, whichever host it comes through
        refused = submit(client, "[段 1 · 2 秒] 三。")
        assert refused.status_code == 429 and "has 2 jobs queued" in refused.text
    listed = clients[1].get("/v1/jobs").json()
    assert len(listed["jobs"] if isinstance(listed, dict) else listed) == 2


def test_an_earlier_keys_json_is_imported_once_by_its_host(hosts: tuple[Stack, str, Path]) -> None:
    one, two, two_dir = hosts
    assert status(one.url, "nk_legacy") == 200  # host 2's file, served by host 1 too
    assert "imported 1 key(s)" in (two_dir / "api.log").read_text()
    keys_cli(one, "revoke", "legacy")
    assert status(two, "nk_legacy") == 401 and status(one.url, "nk_legacy") == 401

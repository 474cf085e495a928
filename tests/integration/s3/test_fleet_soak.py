"""Two machines, one fleet (issue 38): hosts A and B, each an API and a worker with a data dir
of its own, over one Redis and one S3 protocol server. Jobs go in through both APIs for two
tenants; twice the worker running a held segment is SIGKILLed mid-segment (the other host's
too, if both were on one), host B's API is SIGKILLed between submissions, each started again. Every accepted job succeeds once, none is lost or
listed twice, and each is served whole, the same bytes, by both APIs. (Keys and quotas across
hosts: tests/integration/stack/test_tenants_fleet.py.)"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from devtools import stack as devstack
from devtools.stack import ROOT, until
from tests.support.s3 import BUCKET, S3Server, s3_env
from tests.support.stack import Stack, free_port, submit, wait_for

SCRIPT = "[段 1 · 3 秒] 第{n}条任务{hold}。\n\n[段 2 · 3 秒] 评分员对通过的轨迹排序。"
JOBS = 8  # through the two APIs, two tenants; two of them held for a worker's kill


@dataclass
class Hosts:
    stack: Stack  # Redis, host A's API (stack.url) and the workers
    root: Path
    api_b: subprocess.Popen[bytes] | None = None
    url_b: str = ""

    def dir(self, host: str) -> Path:
        d = self.root / host
        d.mkdir(exist_ok=True)
        return d

    def start_worker(self, host: str) -> None:
        self.stack.start_worker(f"worker-{host}", {"NARRATE_DATA_DIR": str(self.dir(host))})

    def start_api_b(self) -> None:
        port = free_port()
        log = (self.dir("b") / "api.log").open("ab")
        self.api_b = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", self.stack.api_app, "--port", str(port),
             "--log-level", "warning"],
            env=self.stack.env | {"NARRATE_DATA_DIR": str(self.dir("b"))}, cwd=ROOT,
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.url_b = f"http://127.0.0.1:{port}"
        until(lambda: _ready(self.url_b), 60, "host B's API")

    def kill_api_b(self) -> None:
        assert self.api_b is not None
        self.api_b.kill()
        self.api_b.wait()

    def client(self, host: str, tenant: str) -> httpx.Client:
        url = self.stack.url if host == "a" else self.url_b
        key = self.stack.keys[tenant]
        return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[Hosts]:
    s3 = S3Server()
    s3.server.start()
    s3.client.create_bucket(Bucket=BUCKET)
    env = {**s3_env(s3), "NARRATE_TEST_FAULTS": "gates", "NARRATE_WORKER_DEAD_AFTER": "3"}
    stack = devstack.start_stack(
        tmp_path / "a",
        workers=0,
        worker_app="tests.support.faults:worker_app",
        api_app="tests.support.faults:api_app",
        env=env,
    )
    h = Hosts(stack, tmp_path)
    try:
        h.start_worker("a")
        h.start_worker("b")
        stack.wait_ready(2)
        h.start_api_b()
        yield h
    finally:
        if h.api_b is not None and h.api_b.poll() is None:
            h.kill_api_b()
        stack.stop()
        s3.server.stop()


def test_two_hosts_with_kills_on_both_lose_nothing_and_run_nothing_twice(hosts: Hosts) -> None:
    s = hosts.stack
    accepted: dict[str, tuple[str, str]] = {}  # job id -> (tenant, host it came in by)
    killed: list[str] = []  # the hosts whose worker was SIGKILLed
    for n in range(JOBS):
        host, tenant = "ab"[n % 2], ("alpha", "beta")[n // 2 % 2]
        gate = {2: "KILLA", 5: "KILLB"}.get(n, "")
        if n == 4:  # host B's API dies between two submissions and comes back
            hosts.kill_api_b()
            hosts.start_api_b()
        with hosts.client(host, tenant) as c:
            r = submit(c, SCRIPT.format(n=n, hold=f"SEGHOLD{gate}" if gate else ""))
        assert r.status_code == 202, r.text
        accepted[r.json()["id"]] = (tenant, host)
        if gate:  # the segment is running: the worker holding it dies mid-segment
            killed.append(Path(s.gate(gate).holder()).name)
            s.kill(f"worker-{killed[-1]}")
            s.gate(gate).open()
            hosts.start_worker(killed[-1])
    for other in {"a", "b"} - set(killed):  # both held on one host: the other's dies too
        s.kill(f"worker-{other}")
        hosts.start_worker(other)
    for job_id, (tenant, host) in accepted.items():
        with hosts.client(host, tenant) as c:
            job = wait_for(c, job_id, timeout=180)
        assert job["status"] == "succeeded", (job_id, job.get("error"))
    for tenant in ("alpha", "beta"):
        with hosts.client("b", tenant) as c:
            listed = [j["id"] for j in c.get("/v1/jobs", params={"limit": 50}).json()["jobs"]]
        mine = [i for i, (t, _) in accepted.items() if t == tenant]
        assert sorted(listed) == sorted(mine)  # nothing lost, nothing listed twice
    for job_id, (tenant, _) in accepted.items():
        served = []
        for host in "ab":
            with hosts.client(host, tenant) as c:
                names = c.get(f"/v1/jobs/{job_id}").json()["artifacts"]
                assert len(names) == len(set(names)) and "narration.wav" in names, names
                served.append(c.get(f"/v1/jobs/{job_id}/artifacts/narration.wav").content)
        assert served[0] == served[1] and len(served[0]) > 10_000

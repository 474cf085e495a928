"""A real stack on this machine for tests and benchmarks: redis-server on its own port (AOF),
Celery worker processes and uvicorn, each a subprocess that ``start_stack`` starts and
``Stack.stop`` stops. Development support: not installed with the service."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from service.cli.stack import WORKER_ENV, redis_argv, wait_for_redis, worker_argv
from service.jobs.keys import KeyStore

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Gate:
    """A point in a fault stack's pipeline (tests/support/faults.py) where a step waits until
    the test opens it: a segment whose text holds ``SEGHOLD<NAME>``, or the finalize of a job
    with ``FINHOLD<NAME>`` in a segment. A job is held running by a condition the test
    releases, never by a sleep that is long enough on a quiet machine only. The step touches
    ``<name>.reached`` when it arrives; ``open`` lets it (and every later arrival) through."""

    root: Path
    name: str

    def reached(self, timeout: float = 120) -> None:
        """Until a step has arrived at the gate (generous: a loaded host starts slowly)."""
        until(lambda: (self.root / f"{self.name}.reached").exists(), timeout, f"gate {self.name}")

    def holder(self) -> str:
        """The data dir of the process waiting at the gate (tests/support/faults.py)."""
        self.reached()
        return (self.root / f"{self.name}.reached").read_text()

    def open(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / f"{self.name}.open").touch()

    def close(self) -> None:
        """Back to shut, and forget an arrival (the next one is waited for afresh)."""
        for suffix in ("open", "reached"):
            (self.root / f"{self.name}.{suffix}").unlink(missing_ok=True)


def until(condition: Callable[[], object], timeout: float = 60, what: str = "condition") -> Any:
    """Poll ``condition`` until it is truthy (returned) or ``timeout`` s pass (TimeoutError)."""
    deadline = time.monotonic() + timeout
    while True:
        if value := condition():
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not reached within {timeout:g} s")
        time.sleep(0.02)


@dataclass
class Stack:
    data_dir: Path
    env: dict[str, str]
    redis_port: int
    api_port: int = 0
    worker_app: str = "workers.celery_app"  # what `celery -A` loads
    api_app: str = "service.api.main:app"  # what uvicorn serves
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def start_redis(self) -> None:
        d = self.data_dir / "redis"
        d.mkdir(parents=True, exist_ok=True)
        self.procs["redis"] = subprocess.Popen(
            redis_argv(self.redis_port, d), stdout=subprocess.DEVNULL
        )
        wait_for_redis(self.env["NARRATE_REDIS_URL"])

    def start_worker(self, name: str, env: dict[str, str] | None = None) -> None:
        """A worker process; ``env`` over the stack's (another data dir: another machine)."""
        log = (self.data_dir / f"{name}.log").open("wb")
        self.procs[name] = subprocess.Popen(
            worker_argv(name, app=self.worker_app),
            env={**self.env, **WORKER_ENV, **(env or {})},
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def start_api(self) -> None:
        self.api_port = free_port()
        log = (self.data_dir / "api.log").open("wb")
        self.procs["api"] = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", self.api_app, "--port", str(self.api_port),
             "--log-level", "warning"],
            env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def wait_ready(self, workers: int, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if workers == 0:
                    if httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200:
                        return
                    continue
                r = httpx.get(f"{self.url}/readyz", timeout=5)
                if r.status_code == 200 and r.json()["checks"]["workers"] >= workers:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise TimeoutError(f"stack not ready; see logs in {self.data_dir}")

    def client(self, tenant: str = "alpha") -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.keys[tenant]}"}, timeout=60
        )

    def kill(self, name: str) -> None:
        """SIGKILL a process of the stack (for a worker: its whole process group)."""
        proc = self.procs.pop(name)
        proc.kill()
        proc.wait()

    def redis(self) -> Any:
        from service.adapters.redis import url as redis_url

        return redis_url.client(self.env["NARRATE_REDIS_URL"], 15.0, 5.0)

    def keystore(self) -> KeyStore:
        """The tenants' keys in the stack's Redis, as `narrate keys` writes them."""
        from service.adapters.redis.tenant_keys import RedisTenantKeys

        return KeyStore(RedisTenantKeys(self.redis()))

    @contextlib.contextmanager
    def writes_paused(self) -> Iterator[None]:
        """Redis takes no writes (CLIENT PAUSE WRITE, as in a failover) until the block ends:
        ended by the test's condition, not by a pause long enough on a quiet host."""
        r = self.redis()
        r.execute_command("CLIENT", "PAUSE", 300_000, "WRITE")
        try:
            yield
        finally:
            r.execute_command("CLIENT", "UNPAUSE")

    def logged(self, text: str, timeout: float = 120) -> None:
        """Until a worker's log says ``text``."""

        def said() -> bool:
            logs = self.data_dir.glob("**/worker*.log")
            return any(text in p.read_text(errors="replace") for p in logs)

        until(said, timeout, f"a worker log saying {text!r}")

    def gate(self, name: str) -> Gate:
        return Gate(Path(self.env["NARRATE_TEST_GATES"]), name)

    def worker_pids(self) -> dict[str, int]:
        return {n: p.pid for n, p in self.procs.items() if n.startswith("worker")}

    def stop(self) -> None:
        """The API and the workers (SIGTERM, at once), then Redis: a worker shutting down
        still hands back and acks through Redis, and without it each one spent its whole
        15 s here retrying (every stack's teardown took 15-30 s)."""
        self.gate("ALL").open()  # a held step lets go, so its worker shuts down warm
        apart = [(n, p) for n, p in self.procs.items() if n != "redis" and p.poll() is None]
        for _, proc in apart:
            proc.send_signal(signal.SIGTERM)
        for _, proc in apart:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        if (redis := self.procs.get("redis")) is not None and redis.poll() is None:
            redis.kill()
            redis.wait()


def start_stack(
    tmp: Path,
    workers: int = 2,
    worker_app: str = "workers.celery_app",
    api_app: str = "service.api.main:app",
    env: dict[str, str] | None = None,
    **settings: Any,
) -> Stack:
    """Start Redis, ``workers`` worker processes and the API; ``settings`` become
    ``NARRATE_<NAME>`` variables, ``env`` is added as it is."""
    port = free_port()
    extra, env = env or {}, dict(os.environ)
    env.update(
        NARRATE_REDIS_URL=f"redis://127.0.0.1:{port}/0",
        NARRATE_DATA_DIR=str(tmp),
        NARRATE_REQUIRE_KEYS="true",
        NARRATE_TEST_GATES=str(tmp / "gates"),
        # A loaded test host stalls a process for seconds at times: the production 2 s Redis
        # timeout would read as "the job store is unavailable". A test about the timeout
        # sets its own (redis_timeout=...).
        NARRATE_REDIS_TIMEOUT="15",
        # A worker stopped with a step running waits this long before handing it back (the
        # production 10 s, slept whole by Celery 5.7): 1 s here, as every test stack's
        # teardown pays it; the soft-shutdown test sets its own.
        NARRATE_WORKER_SOFT_SHUTDOWN_TIMEOUT="1",
        PYTHONPATH=str(ROOT),
    )
    env.update({f"NARRATE_{k.upper()}": str(v) for k, v in settings.items()})
    env.update(extra)
    stack = Stack(tmp, env, port, worker_app=worker_app, api_app=api_app)
    try:
        stack.start_redis()
        keys = stack.keystore()
        stack.keys = {t: keys.create(t) for t in ("alpha", "beta")}
        for i in range(workers):
            stack.start_worker(f"worker{i + 1}")
        stack.start_api()
        stack.wait_ready(workers)
    except BaseException:
        stack.stop()
        raise
    return stack


def wait_for(
    client: httpx.Client,
    job_id: str,
    timeout: float = 300,
    until: tuple[str, ...] = ("succeeded", "failed", "canceled"),
) -> dict[str, Any]:
    """Poll the job until its status is one of ``until``. ``timeout`` guards against a hang,
    not a slow machine: a loaded CI host (load average 15-40 beside other runs) took over
    120 s for a job a quiet one finishes in 20. A 5xx answer (a store away for a
    moment, as a fault test makes it) is asked again; any other non-200 is the test's error,
    said with the body rather than as a missing "status"."""
    deadline = time.monotonic() + timeout
    job: dict[str, Any] = {"status": "unknown"}
    while time.monotonic() < deadline:
        r = client.get(f"/v1/jobs/{job_id}")
        if r.status_code == 200:
            job = r.json()
            if job["status"] in until:
                return job
        elif r.status_code < 500:
            raise AssertionError(f"job {job_id}: HTTP {r.status_code} {r.text}")
        time.sleep(0.2)
    raise TimeoutError(f"job {job_id} still {job['status']} after {timeout:g} s")


def submit(
    client: httpx.Client,
    script: str,
    video: Path | None = None,
    options: dict[str, Any] | None = None,
    **headers: str,
) -> httpx.Response:
    files: dict[str, Any] = {"script": ("script.md", script.encode(), "text/markdown")}
    if video is not None:
        files["video"] = ("clip.mp4", video.read_bytes(), "video/mp4")
    data = {"options": json.dumps({"engine": "espeak"} if options is None else options)}
    return client.post("/v1/jobs", files=files, data=data, headers=headers)

"""`narrate serve` as an operator runs it: a worker that dies is restarted, and SIGTERM ends
every process it started (no worker or reconciler left running, reparented to PID 1)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from devtools.stack import until
from service.cli.stack import redis_argv, wait_for_redis
from tests.support.data import ROOT
from tests.support.stack import free_port


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid``, from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for child, ppid in parent.items():
            if ppid == p and child not in out:
                out.add(child)
                todo.append(child)
    return out


def ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def worker_mains(serve: int) -> list[int]:
    """The Celery worker main processes serve started (not their pool children)."""
    return [p for p in children(serve) if ppid(p) == serve and " worker " in cmdline(p)]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def ready_workers(url: str) -> int:
    try:
        r = httpx.get(f"{url}/readyz", timeout=5)
        return int(r.json()["checks"]["workers"])
    except (httpx.HTTPError, ValueError, KeyError):
        return -1


def wait_until(check: Callable[[], bool], timeout: float) -> None:
    """``check`` polled until it holds; the bound is generous (at least 180 s: a loaded host
    starts a fleet slowly), so only a state never reached fails."""
    until(check, max(timeout, 180), "the serve's processes")


@contextlib.contextmanager
def serving(
    tmp_path: Path, workers: int, **env: str
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`narrate serve` on its own Redis, once ``workers`` workers are ready; whatever a
    failing serve leaves behind is killed afterwards."""
    redis_port, api_port = free_port(), free_port()
    (tmp_path / "redis").mkdir()
    redis_proc = subprocess.Popen(
        redis_argv(redis_port, tmp_path / "redis"), stdout=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{api_port}"
    env = dict(os.environ, NARRATE_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
               NARRATE_DATA_DIR=str(tmp_path), PYTHONPATH=str(ROOT), **env)  # fmt: skip
    serve = None
    seen: set[int] = set()
    try:
        wait_for_redis(env["NARRATE_REDIS_URL"])
        log = (tmp_path / "serve.log").open("wb")
        serve = subprocess.Popen(
            [sys.executable, "-m", "service.cli.main", "serve", "--port", str(api_port),
             "--workers", str(workers)],
            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_until(lambda: ready_workers(url) == workers, 90)
        seen |= children(serve.pid)
        yield serve, url
        seen |= children(serve.pid) if serve.poll() is None else set()
    finally:
        if serve is not None and serve.poll() is None:
            seen |= children(serve.pid)
            serve.kill()
            serve.wait()
        for pid in seen:  # whatever a failing serve left behind
            ours = any(
                w in cmdline(pid) for w in ("workers.celery_app", "service.cli.main reconcile")
            )
            if alive(pid) and ours and ppid(pid) in (1, *seen):
                os.kill(pid, signal.SIGKILL)
        redis_proc.kill()
        redis_proc.wait()


def timed_get(
    url: str, client: httpx.Client | None = None, timeout: float = 10
) -> tuple[int, float, dict[str, Any]]:
    """Status, seconds taken and JSON body of a GET (status 0: no answer in ``timeout``)."""
    t = time.monotonic()
    try:
        r = (client or httpx).get(url, timeout=timeout)
    except httpx.HTTPError:
        return 0, time.monotonic() - t, {}
    return r.status_code, time.monotonic() - t, r.json()


def readyz_under_load(url: str, workers: int) -> None:
    """50 concurrent /readyz (no key needed) while a job runs, twice: each answers, /v1 and
    /healthz still answer at once, and the job is never held up. Before: each /readyz was a
    Celery ping holding one broker connection (pool of 10) while waiting for another, and
    a dozen at once hung the API for good."""
    script = "[段 1 · 3 秒] 评分员对通过的轨迹排序。"
    files = {"script": ("s.md", script.encode(), "text/markdown")}
    data = {"options": '{"engine": "espeak"}'}
    job = httpx.post(f"{url}/v1/jobs", files=files, data=data, timeout=30).json()["id"]
    limits = httpx.Limits(max_connections=50, max_keepalive_connections=0)
    with ThreadPoolExecutor(50) as pool, httpx.Client(limits=limits) as probes:
        for _ in range(2):  # a new connection each, as 50 separate probes would be
            answers = list(pool.map(lambda _: timed_get(f"{url}/readyz", probes), range(50)))
            assert [a[0] for a in answers] == [200] * 50, answers
            assert {a[2]["checks"]["workers"] for a in answers} == {workers}
            assert max(a[1] for a in answers) < 5, answers
            print(f"50 concurrent /readyz: slowest {max(a[1] for a in answers):.2f} s")
    status, took, body = timed_get(f"{url}/v1/jobs/{job}")
    assert status == 200 and took < 2, (status, took)
    status, took, _ = timed_get(f"{url}/healthz")
    assert status == 200 and took < 1, (status, took)
    deadline = time.monotonic() + 60
    while body["status"] not in ("succeeded", "failed"):  # the job was never held up
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
        body = timed_get(f"{url}/v1/jobs/{job}")[2]
    assert body["status"] == "succeeded", body["error"]


def test_serve_under_readyz_load_restarts_a_dead_worker_and_sigterm_ends_every_child(
    tmp_path: Path,
) -> None:
    """One serve (a start is a Redis, the API, the reconciler and two workers): /readyz under
    load never wedges its API, a worker that dies is restarted, and SIGTERM still stops it
    and every process it started."""
    with serving(tmp_path, 2) as (serve, url):
        readyz_under_load(url, 2)
        mains = worker_mains(serve.pid)
        assert len(mains) == 2, [cmdline(p) for p in children(serve.pid)]
        os.kill(mains[0], signal.SIGKILL)  # a worker dies
        wait_until(lambda: not alive(mains[0]), 10)
        wait_until(lambda: len(worker_mains(serve.pid)) == 2 and ready_workers(url) == 2, 60)
        every = children(serve.pid)  # the restarted worker among them
        assert any("reconcile" in cmdline(p) for p in every)
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=40) == 0
        wait_until(lambda: not [p for p in every if alive(p)], 20)  # none left to PID 1

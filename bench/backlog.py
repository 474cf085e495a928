"""Backlog benchmark: 20 short jobs through the real stack (Redis, Celery workers, uvicorn).

Prints throughput (jobs/min) with 1 and with 2 worker processes, and the queue + API
overhead per job measured on an idle stack: submit -> first task start, and finalize end ->
`succeeded` visible to a client polling every 10 ms.
Usage: .venv/bin/python bench/backlog.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import Stack, start_stack, submit  # noqa: E402

JOBS = 20
_counter = iter(range(10**6))


def script() -> str:
    """A fresh text every job, so the TTS cache never answers for it (a cold backlog)."""
    n = next(_counter)
    return "\n\n".join(
        f"[段 {i} · 4 秒] 第{n}号任务第{i}段:评分员对通过的轨迹排序,低排名降权。"
        for i in range(1, 4)
    )


def finish(c: httpx.Client, job_id: str, poll: float) -> float:
    while c.get(f"/v1/jobs/{job_id}").json()["status"] not in ("succeeded", "failed"):
        time.sleep(poll)
    return time.time()


def throughput(stack: Stack, c: httpx.Client) -> float:
    t0 = time.perf_counter()
    ids = [submit(c, script()).json()["id"] for _ in range(JOBS)]
    while True:  # one list request per 200 ms: the poller must not compete for the CPU
        jobs = c.get("/v1/jobs", params={"limit": 200}).json()["jobs"]
        done = [j for j in jobs if j["id"] in ids and j["status"] in ("succeeded", "failed")]
        if len(done) == JOBS:
            break
        time.sleep(0.2)
    return time.perf_counter() - t0


def overhead(stack: Stack, c: httpx.Client) -> tuple[list[float], list[float]]:
    r = redis.Redis.from_url(stack.env["NARRATE_REDIS_URL"], decode_responses=True)
    starts, visible = [], []
    for _ in range(10):
        t_submit = time.time()
        job_id = submit(c, script()).json()["id"]
        seen = finish(c, job_id, 0.01)
        segs = [json.loads(v) for v in r.hgetall(f"narrate:job:{job_id}:seg").values()]
        starts.append(min(s["started"] for s in segs) - t_submit)
        visible.append(seen - float(r.hget(f"narrate:job:{job_id}", "updated") or 0))
    return starts, visible


def spread(what: str, seconds: list[float]) -> str:
    med, top = statistics.median(seconds) * 1000, max(seconds) * 1000
    return f"{what} median {med:.0f} ms (max {top:.0f})"


def measure(workers: int) -> float:
    """Jobs per minute with ``workers`` worker processes; prints the overhead with 2."""
    with tempfile.TemporaryDirectory() as tmp:
        stack = start_stack(Path(tmp), workers=workers)
        try:
            with stack.client() as c:
                for _ in range(workers):  # warm up every worker's imports
                    finish(c, submit(c, script()).json()["id"], 0.05)
                elapsed = throughput(stack, c)
                rate = JOBS / elapsed * 60
                print(f"{workers} worker(s): {JOBS} jobs in {elapsed:.1f} s = {rate:.1f} jobs/min")
                if workers == 2:
                    starts, visible = overhead(stack, c)
                    print("idle overhead:", spread("submit -> first task start", starts))
                    print("idle overhead:", spread("finalize end -> succeeded visible", visible))
                return rate
        finally:
            stack.stop()


def main() -> None:
    one, two = measure(1), measure(2)
    print(f"speed-up 2 vs 1 worker: {two / one:.2f}x")


if __name__ == "__main__":
    main()

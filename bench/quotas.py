"""Quotas benchmark: 2,000 tiny submissions from one key within a minute against the real
stack (Redis, uvicorn; no workers, so every accepted job stays queued), while another tenant
submits one job at a time.

Prints how many got 202 and 429, the 429s' latency (median, p95), the other tenant's latency
idle and under the flood, and Redis's memory (used_memory, keys) before, after the flood and
once the jobs are deleted.
Usage: .venv/bin/python bench/quotas.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import Stack, start_stack  # noqa: E402

FLOOD = 2000
SPEC: dict[str, Any] = {
    "title": "tiny",
    "language": "zh",
    "segments": [{"text": "评分员排序。", "seconds": 1}],
    "options": {"engine": "espeak"},
}


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95)] if values else 0.0


def timed(c: httpx.Client) -> tuple[int, float]:
    t0 = time.perf_counter()
    status = c.post("/v1/jobs", json=SPEC).status_code
    return status, time.perf_counter() - t0


def memory(r: redis.Redis) -> str:
    return f"used_memory={r.info('memory')['used_memory'] / 1e6:.2f} MB keys={r.dbsize()}"


def other_tenant(stack: Stack, stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(base_url=stack.url, headers=auth(stack, "beta"), timeout=30) as c:
        while not stop.wait(0.25):  # a steady trickle, well inside its own quota
            status, seconds = timed(c)
            assert status == 202, status
            out.append(seconds)


def auth(stack: Stack, tenant: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.keys[tenant]}"}


def flood(stack: Stack) -> list[tuple[int, float]]:
    local = threading.local()

    def one(_: int) -> tuple[int, float]:
        if not hasattr(local, "c"):
            local.c = httpx.Client(base_url=stack.url, headers=auth(stack, "alpha"), timeout=30)
        return timed(local.c)

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(FLOOD)))


def delete_all(stack: Stack) -> None:
    """Cancel, then delete, every job alpha has."""
    with httpx.Client(base_url=stack.url, headers=auth(stack, "alpha"), timeout=30) as c:
        while jobs := c.get("/v1/jobs", params={"limit": 100}).json()["jobs"]:
            for job in jobs:
                c.delete(f"/v1/jobs/{job['id']}")  # cancels
                c.delete(f"/v1/jobs/{job['id']}")  # deletes


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        stack = start_stack(Path(tmp), workers=0)
        try:
            r = redis.Redis.from_url(stack.env["NARRATE_REDIS_URL"])
            print("redis before:", memory(r))
            idle: list[float] = []
            with httpx.Client(base_url=stack.url, headers=auth(stack, "beta"), timeout=30) as c:
                idle = [timed(c)[1] for _ in range(20)]
            stop, busy = threading.Event(), list[float]()
            side = threading.Thread(target=other_tenant, args=(stack, stop, busy))
            side.start()
            t0 = time.perf_counter()
            results = flood(stack)
            took = time.perf_counter() - t0
            stop.set()
            side.join()
            ok = [s for code, s in results if code == 202]
            refused = [s for code, s in results if code == 429]
            print(f"{FLOOD} submissions from alpha in {took:.1f} s: {len(ok)} x 202, "
                  f"{len(refused)} x 429, {FLOOD - len(ok) - len(refused)} other")  # fmt: skip
            print(f"429 latency: median {statistics.median(refused) * 1000:.1f} ms, "
                  f"p95 {p95(refused) * 1000:.1f} ms; 202 median "
                  f"{statistics.median(ok) * 1000:.1f} ms")  # fmt: skip
            print(f"beta latency idle: median {statistics.median(idle) * 1000:.1f} ms, "
                  f"p95 {p95(idle) * 1000:.1f} ms; during the flood: median "
                  f"{statistics.median(busy) * 1000:.1f} ms, p95 {p95(busy) * 1000:.1f} ms "
                  f"({len(busy)} submissions)")  # fmt: skip
            print("redis after the flood:", memory(r))
            delete_all(stack)
            counts = r.hgetall("narrate:metrics:tenants")
            print("redis after deleting alpha's jobs:", memory(r), "tenant counts:", counts)
        finally:
            stack.stop()


if __name__ == "__main__":
    main()

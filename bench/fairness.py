"""Fair-share benchmark on the real stack (Redis, 2 Celery workers with their dispatcher,
uvicorn).

1. Tenant A submits 80 small jobs (2 segments each), then tenant B submits 1: B's wait from
   its submit to its first segment's start, with fair share and with the old first come,
   first served queue (NARRATE_FAIR_SHARE=0) side by side, against one segment task's time.
2. Weights 3:1 (A's key --weight 3): both tenants backlogged, the jobs each finishes over a
   busy minute, and their ratio.

Usage: .venv/bin/python bench/fairness.py [--jobs 80] [--seconds 60] [--skip-fifo]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from itertools import count
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import start_stack  # noqa: E402

_n = count()


def spec() -> dict[str, Any]:
    """A fresh text every job, so the TTS cache never answers for it."""
    n = next(_n)
    return {
        "title": f"bench {n}",
        "language": "zh",
        "segments": [
            {"text": f"第{n}号任务第{i}段:评分员排序。", "seconds": 2} for i in range(1, 3)
        ],
        "options": {"engine": "espeak"},
    }


def post(c: httpx.Client) -> str:
    r = c.post("/v1/jobs", json=spec())
    r.raise_for_status()
    return str(r.json()["id"])


def segments(r: Any, job_id: str) -> list[dict[str, Any]]:
    return [json.loads(v) for v in r.hvals(f"narrate:job:{job_id}:seg")]


def first_start(r: Any, job_id: str, timeout: float = 600) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = [s["started"] for s in segments(r, job_id) if "started" in s]
        if started:
            return float(min(started))
        time.sleep(0.02)
    raise TimeoutError(job_id)


def late_tenant(tmp: Path, jobs: int, fair: bool) -> tuple[float, float]:
    """(B's wait, A's median segment task) with ``jobs`` of A's ahead of B's one."""
    stack = start_stack(tmp, workers=2, fair_share=fair)
    try:
        r = stack.redis()
        with stack.client("alpha") as a, stack.client("beta") as b:
            for c in (a, b):  # warm up every worker's imports
                warm = post(c)
                first_start(r, warm)
            backlog = [post(a) for _ in range(jobs)]
            t_submit = time.time()
            late = post(b)
            wait = first_start(r, late) - t_submit
            deadline = time.monotonic() + 120
            while True:  # one segment task's time: A's first jobs' segments, once some ran
                tasks = [
                    s["finished"] - s["started"]
                    for j in backlog[:10]
                    for s in segments(r, j)
                    if "finished" in s
                ]
                if len(tasks) >= 6 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            return wait, statistics.median(tasks) if tasks else float("nan")
    finally:
        stack.stop()


def busy_minute(tmp: Path, seconds: float) -> tuple[int, int, bool]:
    """Jobs A (weight 3) and B (weight 1) finish within ``seconds`` of both being backlogged;
    and whether both still had jobs waiting at the end (else the ratio means nothing)."""
    stack = start_stack(tmp, workers=2, max_queued_jobs=5000, submissions_per_minute=5000)
    stack.keystore().create("alpha", {"weight": 3})  # the newest key's limits win
    try:
        r = stack.redis()
        with stack.client("alpha") as a, stack.client("beta") as b:
            ids: dict[str, list[str]] = {"alpha": [], "beta": []}
            per_round = max(8, int(seconds * 1.5))  # more than the window can finish
            for _ in range(per_round):
                ids["alpha"] += [post(a), post(a), post(a)]
                ids["beta"].append(post(b))
            t0 = time.time()
            time.sleep(seconds)
            t1 = time.time()
            done: dict[str, int] = {}
            for tenant, jobs in ids.items():
                pipe = r.pipeline(transaction=False)
                for j in jobs:
                    pipe.hmget(f"narrate:job:{j}", "status", "updated")
                states = pipe.execute()
                done[tenant] = sum(
                    1 for st, up in states if st == "succeeded" and t0 <= float(up) <= t1
                )
                pending = [st for st, _ in states if st in ("queued", "running")]
                done[tenant + " left"] = len(pending)
            both = done["alpha left"] > 0 and done["beta left"] > 0
            return done["alpha"], done["beta"], both
    finally:
        stack.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=80, help="tenant A's backlog (default 80)")
    ap.add_argument("--seconds", type=float, default=60.0, help="the busy window (default 60)")
    ap.add_argument("--skip-fifo", action="store_true", help="no first-come-first-served run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        modes = [True] if args.skip_fifo else [True, False]
        for fair in modes:
            wait, task = late_tenant(Path(tmp) / f"late-{fair}", args.jobs, fair)
            name = "fair share" if fair else "first come, first served (NARRATE_FAIR_SHARE=0)"
            print(
                f"{name}: B's wait behind A's {args.jobs} jobs: {wait:.2f} s "
                f"(one segment task: median {task:.2f} s; aim <= {task + 1:.2f} s)"
            )
        a, b, both = busy_minute(Path(tmp) / "weights", args.seconds)
        ratio = a / b if b else float("inf")
        print(
            f"weights 3:1 over {args.seconds:g} s: A finished {a} jobs, B {b}: "
            f"{ratio:.2f}:1 ({(ratio / 3 - 1) * 100:+.1f} % from 3:1)"
            + ("" if both else " [a tenant ran out of backlog: make it larger]")
        )


if __name__ == "__main__":
    main()

"""Webhooks at scale on the real stack (Redis, 2 Celery workers each with its sender, uvicorn):
N jobs (default 100) to a loopback receiver that fails the first 2 tries of every message,
with one worker SIGKILLed mid-run (a third started). Prints how many events were delivered,
how many signatures the `standardwebhooks` package accepts, the tries per message, the time
from a job's end to its 2xx, and what writing the events costs a job: the outbox write timed
on the stack's Redis (median, p95), and the jobs' wall times with and without an endpoint.
Usage:
    .venv/bin/python bench/webhooks.py [--jobs 100] [--no-kill]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from standardwebhooks import Webhook  # noqa: E402

from devtools.receiver import Receiver  # noqa: E402
from devtools.stack import Stack, start_stack, submit  # noqa: E402

SCRIPT = "[段 1 · 3 秒] 评分员对通过的轨迹排序。"
HOOKS: dict[str, Any] = {
    "webhook_allow_private": 1,
    "webhook_backoff": 0.5,
    "webhook_timeout": 10,
    "webhook_lease": 15,
    "webhook_poll": 0.1,
}


def run_jobs(stack: Stack, n: int) -> list[dict[str, Any]]:
    with stack.client() as c:
        ids = [submit(c, SCRIPT).json()["id"] for _ in range(n)]
        done: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + 60 + 10 * n
        while len(done) < n and time.monotonic() < deadline:
            for job_id in ids:
                if job_id not in done:
                    job = c.get(f"/v1/jobs/{job_id}").json()
                    if job["status"] in ("succeeded", "failed", "canceled"):
                        done[job_id] = job
            time.sleep(0.5)
        return [done[i] for i in ids if i in done]


def wall(jobs: list[dict[str, Any]]) -> float:
    return float(statistics.median(j["updated"] - j["created"] for j in jobs))


def outbox_cost(stack: Stack, job_id: str, n: int = 200) -> list[float]:
    """Seconds a worker's finalize spends, after the job's status write, on its events: what
    Lifecycle.ended does (read the record, look up the endpoints, build and enqueue the
    payload), timed on the stack's Redis for copies of a real finished job."""
    import dataclasses

    from service import wiring
    from service.config import Settings

    settings = Settings(redis_url=stack.env["NARRATE_REDIS_URL"], data_dir=stack.data_dir)
    built = wiring.build(settings)
    store, hooks = built.stores.records, built.webhooks
    out = []
    for i in range(n):
        t = time.perf_counter()
        job = store.get(job_id)
        assert job is not None
        hooks.notify(dataclasses.replace(job, id=f"bench{i}"), "job.succeeded")
        out.append(time.perf_counter() - t)
    stack.redis().delete("narrate:outbox")  # not for sending: the receiver counts jobs only
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--jobs", type=int, default=100)
    p.add_argument("--no-kill", action="store_true")
    args = p.parse_args()
    receiver = Receiver(fail_first=2).start()
    stack = start_stack(Path(tempfile.mkdtemp(prefix="bench-webhooks-")), workers=2, **HOOKS)
    try:
        batch = min(20, args.jobs)
        baseline = run_jobs(stack, batch)  # no endpoint yet
        with stack.client() as c:
            secret = c.post("/v1/webhooks", json={"url": receiver.url}).json()["secret"]
        costs = outbox_cost(stack, baseline[0]["id"])
        hooked = run_jobs(stack, batch)  # the same batch, now with an endpoint
        while len(receiver.delivered()) < batch:
            time.sleep(0.2)
        with receiver.lock:
            receiver.requests.clear()
        t0 = time.monotonic()
        if not args.no_kill:
            import threading

            def kill_when_busy() -> None:
                while len(receiver.delivered()) < args.jobs // 3:
                    time.sleep(0.05)
                stack.kill("worker1")  # SIGKILL: its in-flight tries and claims are lost
                stack.start_worker("worker3")

            threading.Thread(target=kill_when_busy, daemon=True).start()
        jobs = run_jobs(stack, args.jobs)
        deadline = time.monotonic() + 120
        while len(receiver.delivered()) < len(jobs) and time.monotonic() < deadline:
            time.sleep(0.2)
        got = receiver.delivered()
        valid = 0
        lag = []
        ended = {j["id"]: j["updated"] for j in jobs + hooked}
        for req in got.values():
            data = Webhook(secret).verify(req.body, req.headers)["data"]
            valid += 1
            lag.append(req.at - ended[data["job_id"]])
        tries = [receiver.tries[m] for m in got]
        figures = {
            "jobs": len(jobs),
            "succeeded": sum(j["status"] == "succeeded" for j in jobs),
            "delivered": len(got),
            "delivered_pct": round(100 * len(got) / max(1, len(jobs)), 1),
            "signatures_valid": valid,
            "tries_per_message": {"min": min(tries, default=0), "max": max(tries, default=0)},
            "worker_killed_mid_run": not args.no_kill,
            "end_to_2xx_s": {
                "median": round(statistics.median(lag), 2) if lag else None,
                "max": round(max(lag), 2) if lag else None,
            },
            "outbox_write_ms": {
                "median": round(1000 * statistics.median(costs), 2),
                "p95": round(1000 * sorted(costs)[int(0.95 * len(costs))], 2),
            },
            "job_wall_s": {
                "batch": batch,
                "without_endpoint_median": round(wall(baseline), 3),
                "with_endpoint_median": round(wall(hooked), 3),
            },
            "run_s": round(time.monotonic() - t0, 1),
        }
        print(json.dumps(figures, indent=2))
    finally:
        stack.stop()
        receiver.stop()


if __name__ == "__main__":
    main()

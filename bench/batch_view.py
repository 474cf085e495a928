"""A batch's jobs read from Redis, one by one (JobStore.get each: a round trip a job, as
GET /v1/batches/{id} did) and at once (JobStore.get_many: one pipelined round trip), on a
redis-server of its own, for batches of 10, 100 and 1,000 jobs of 4 segments each. Prints the
median of 20 reads of each, in ms, and their ratio.

Usage: .venv/bin/python bench/batch_view.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import free_port  # noqa: E402
from service.adapters.redis.jobstore import JobStore  # noqa: E402
from service.cli.stack import redis_argv, wait_for_redis  # noqa: E402
from service.ports import NewJob  # noqa: E402
from tests.support.jobs import make_job  # noqa: E402


def median_ms(read: Callable[[], object], rounds: int = 20) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        read()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(redis_argv(port, Path(tmp)), stdout=subprocess.DEVNULL)
        try:
            url = f"redis://127.0.0.1:{port}/0"
            wait_for_redis(url)
            store = JobStore.from_url(url)
            now = time.time()
            for n in (10, 100, 1000):
                store.r.flushdb()
                ids = [f"j{n}x{i}" for i in range(n)]
                for job_id in ids:
                    store.create(
                        NewJob(make_job(job_id, "alpha", now, n=4, options={"engine": "espeak"}))
                    )  # fmt: skip
                one = median_ms(lambda ids=ids: [store.get(j) for j in ids])  # type: ignore[misc]
                many = median_ms(lambda ids=ids: store.get_many(ids))  # type: ignore[misc]
                print(
                    f"{n:>5} jobs: one by one {one:8.2f} ms, get_many {many:8.2f} ms, "
                    f"{one / many:5.1f}x"
                )
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()

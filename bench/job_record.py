"""Reading a job record: main 007f7dc's way (every field json.loads'd, the plan left a dict)
against the typed codec (service/domain/job_record.py: upgraded by the registry, the plan
validated into a JobPlan), on the record main wrote for a two-segment job with a video
(tests/data/records/). Prints the median µs of each per record, and their ratio, side by
side in one run: the cost a listing page (50 records) pays.

Usage: .venv/bin/python bench/job_record.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.domain.job_record import new_record, read_job  # noqa: E402

RECORD = json.loads((ROOT / "tests/data/records/jobs-007f7dc.json").read_text(encoding="utf-8"))


def main_read(data: dict[str, str], segs: dict[str, str]) -> object:
    """What main's job_read.record did with the hashes (the Job built of these)."""
    return (
        json.loads(data["spec"]),
        json.loads(data["options"]),
        json.loads(data.get("warnings") or "[]"),
        json.loads(data.get("timings") or "{}"),
        json.loads(data.get("artifacts") or "[]"),
        {int(k): json.loads(v) for k, v in segs.items()},
        json.loads(data.get("plan") or "{}"),
    )


def median_us(read: Callable[[], object], rounds: int = 15, n: int = 200) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            read()
        times.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(times)


def main() -> None:
    data, segs = RECORD["succeeded"]["job"], RECORD["succeeded"]["seg"]
    job = read_job(data, segs)
    assert job is not None
    current = {k: str(v) for k, v in new_record(job, "").items()}
    before = median_us(lambda: main_read(data, segs))
    print(f"main (dicts, every field parsed): {before:.0f} µs/record")
    for name, record in (("main's record", data), ("a record written now", current)):
        lazy = median_us(lambda r=record: read_job(r, segs))  # type: ignore[misc]
        full = median_us(lambda r=record: _with_plan(r, segs))  # type: ignore[misc]
        print(
            f"typed, {name}: {lazy:.0f} µs ({lazy / before:.2f} x) without its plan read "
            f"(a batch view), {full:.0f} µs ({full / before:.2f} x) with it (a listing)"
        )


def _with_plan(data: dict[str, str], segs: dict[str, str]) -> object:
    job = read_job(data, segs)
    return job.plan if job is not None else None


if __name__ == "__main__":
    main()

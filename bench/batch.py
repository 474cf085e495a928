"""Batch benchmark: 20 short scripts (each with a small video) on 2 workers, through the real
stack (Redis, Celery workers, uvicorn).

Times come from the job records (created -> last update), not from the client's polling.
Prints, per round, the same jobs submitted one after another (each waited for) on a
1-worker stack and on the 2-worker one, and a batch's wall time on the 2-worker one (submit ->
every item ended); then the batch's ratio to each sum over the workers (the aim: within 1.15),
and a second batch of the same scripts: its wall time and the TTS engine calls it made (the
cache is shared: the aim is 0). Every run has texts of its own, so none finds another's speech
in the cache. Rounds interleave the runs, so a machine's load weighs on all of them alike.
Usage: .venv/bin/python bench/batch.py [items]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402
from devtools.stack import Stack, start_stack  # noqa: E402

WORKERS = 2
ENDED = ("succeeded", "failed", "canceled")


def script(run: str, n: int) -> bytes:
    return (
        f"标题:第{n}号\n\n"
        f"[段 1 · 4 秒 开场] {run}第{n}号任务:代码测试通过以后,再做优化。\n\n"
        f"[段 2 · 4 秒 机制] {run}第{n}号任务:评分员对通过的轨迹排序,低排名降权。\n"
    ).encode()


def parts(run: str, items: int, video: bytes) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for n in range(items):
        out.append(("script", (f"s{n:02d}.md", script(run, n), "text/markdown")))
        out.append(("video", (f"s{n:02d}.mp4", video, "video/mp4")))
    return [*out, ("options", (None, '{"engine": "espeak"}'))]


def _metric_sum(stack: Stack, name: str) -> float:
    """The sum of every series of ``name`` in /metrics (all labels)."""
    text = httpx.get(f"{stack.url}/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


def tts_calls(stack: Stack) -> float:
    return _metric_sum(stack, "narrate_tts_calls_total")


def work(stack: Stack) -> float:
    """Seconds the workers have spent in pipeline stages so far (/metrics' stage sums)."""
    return _metric_sum(stack, "narrate_stage_seconds_sum")


def one_by_one(c: httpx.Client, run: str, items: int, video: bytes) -> float:
    """Each job alone: submitted, then waited for before the next; the sum of their times by
    the records (created -> last update), so the client's polling adds nothing."""
    total = 0.0
    for n in range(items):
        files = {
            "script": (f"s{n:02d}.md", script(run, n), "text/markdown"),
            "video": (f"s{n:02d}.mp4", video, "video/mp4"),
        }
        r = c.post("/v1/jobs", files=files, data={"options": '{"engine": "espeak"}'})
        assert r.status_code == 202, r.text
        while (job := c.get(f"/v1/jobs/{r.json()['id']}").json())["status"] not in ENDED:
            time.sleep(0.2)
        total += job["updated"] - job["created"]
    return total


def batch(c: httpx.Client, run: str, items: int, video: bytes) -> tuple[float, dict[str, int]]:
    """A batch's wall time by the records: its creation -> its last item's last update."""
    t0 = time.perf_counter()
    r = c.post("/v1/batches", files=parts(run, items, video))
    assert r.status_code == 202, r.text
    print(f"  POST /v1/batches answered in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    while (state := c.get(f"/v1/batches/{r.json()['id']}").json())["status"] in (
        "queued",
        "running",
    ):
        time.sleep(0.5)
    ends = [c.get(f"/v1/jobs/{i['job']}").json()["updated"] for i in state["items"]]
    return max(ends) - state["created"], state["counts"]


def main() -> None:
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    serial1, serial2, walls = [], [], []
    spent: dict[str, float] = {"1w": 0.0, "2w": 0.0, "batch": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        video = make_video(Path(tmp) / "clip.mp4", 8, size="320x240", fps=10).read_bytes()
        one = start_stack(Path(tmp) / "one", workers=1)
        stack = start_stack(Path(tmp) / "stack", workers=WORKERS)
        try:
            with one.client() as c1, stack.client() as c:
                c1.timeout = c.timeout = httpx.Timeout(120)
                for k in range(rounds):  # interleaved: a noisy machine weighs on all alike
                    w0 = work(one)
                    serial1.append(one_by_one(c1, f"丙{k}", items, video))
                    w1 = work(stack)
                    spent["1w"] += work(one) - w0
                    serial2.append(one_by_one(c, f"甲{k}", items, video))
                    w2 = work(stack)
                    wall, counts = batch(c, f"乙{k}", items, video)
                    walls.append(wall)
                    spent["2w"] += w2 - w1
                    spent["batch"] += work(stack) - w2
                before = tts_calls(stack)
                again, counts2 = batch(c, "乙0", items, video)
                calls = tts_calls(stack) - before
        finally:
            stack.stop()
            one.stop()
    wall = statistics.median(walls)
    print(f"{items} items, {rounds} rounds; seconds per round:")
    print(f"  one by one, 1 worker:  {', '.join(f'{s:.1f}' for s in serial1)}")
    print(f"  one by one, 2 workers: {', '.join(f'{s:.1f}' for s in serial2)}")
    print(f"  batch, 2 workers:      {', '.join(f'{s:.1f}' for s in walls)}")
    for label, runs in (("1 worker", serial1), ("2 workers", serial2)):
        ideal = statistics.median(runs) / WORKERS
        print(f"batch (median {wall:.1f} s) / (one by one on {label} / {WORKERS}, median "
              f"{ideal:.1f} s) = {wall / ideal:.2f}")  # fmt: skip
    per_job = {k: v / (rounds * items) for k, v in spent.items()}
    print(
        "stage seconds per job (CPU contention shows as more): "
        + ", ".join(f"{k} {v:.2f}" for k, v in per_job.items())
    )
    busy = spent["batch"] / rounds / (WORKERS * wall)
    print(f"workers busy in stages during the batch: {busy:.0%} of {WORKERS} x its wall time")
    print(f"  items: {counts}")
    print(f"same batch again: {again:.1f} s, {calls:g} TTS engine calls; items: {counts2}")


if __name__ == "__main__":
    main()

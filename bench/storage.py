"""Storage benchmark: the same job (the GAGAR script with a 62 s 1080x1920 video, espeak) on
local storage and on an S3 server (moto's, in this process), through the real job steps:
the upload as the API receives it, every segment step, finalize (publish), and a download
of every artifact. Steps run in this process in turn (no Celery: the figures are the
storage's, not the queue's), on a Redis of their own.

Prints per job and per stage: seconds on local storage, on S3, the difference (the latency
S3 adds) and the bytes put and got through the adapter; a cold job (TTS cache empty) and
the median of warm ones (every phrase a cache hit).
Usage: .venv/bin/python bench/storage.py [--runs N]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402
from devtools.stack import free_port  # noqa: E402
from service import audio, wiring  # noqa: E402
from service.adapters.redis.jobstore import JobStore as RedisJobStore  # noqa: E402
from service.adapters.storage.s3client import TRAFFIC  # noqa: E402
from service.adapters.text import pinyin  # noqa: E402
from service.cli.stack import redis_argv, wait_for_redis  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.spec import RenderOptions  # noqa: E402
from service.jobs import JobService, Submission, WorkerSteps  # noqa: E402

GAGAR = ROOT / "examples" / "gagar-grpo-quality-ranking.md"
STAGES = ("upload", "segments", "finalize", "download")
AWS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}


def one_job(service: JobService, steps: WorkerSteps, video: Path, job_id: str) -> dict[str, float]:
    """The job as the API and the workers run it; seconds per stage, bytes put and got."""
    spec = parse_script(GAGAR.read_text(encoding="utf-8"), GAGAR.name)
    TRAFFIC.put = TRAFFIC.get = 0
    t = {"start": time.perf_counter()}
    incoming = service.receive("bench", job_id, "video")
    with video.open("rb") as f:  # as the API's multipart reader hands it over
        while chunk := f.read(1 << 16):
            incoming.write(chunk)
            if incoming.pending():
                incoming.flush()
    incoming.commit()
    job, _ = service.submit(
        Submission("bench", job_id, spec, RenderOptions(engine="espeak"), incoming.path)
    )
    incoming.close()
    t["upload"] = time.perf_counter()
    for i in range(job.segments_total):
        steps.run_segment(job_id, i, "bench")
    t["segments"] = time.perf_counter()
    steps.run_finalize(job_id, "bench")
    t["finalize"] = time.perf_counter()
    done = service.store.records.get(job_id)
    assert done is not None and done.status == "succeeded", done and done.error
    for name in done.artifacts:
        artifact = service.artifact(done, name)
        assert artifact is not None
        with artifact.open() as stream:
            while stream.read(1 << 16):
                pass
    t["download"] = time.perf_counter()
    marks = ["start", *STAGES]
    out = {s: t[s] - t[marks[i]] for i, s in enumerate(marks[1:])}
    out["job"] = t["download"] - t["start"]
    out["put_mb"], out["get_mb"] = TRAFFIC.put / 1e6, TRAFFIC.get / 1e6
    service.files.delete("bench", job_id)
    assert isinstance(
        service.store.records, RedisJobStore
    )  # the port has no flush: the bench's Redis
    service.store.records.r.flushdb()
    return out


def run(mode: str, base: Settings, video: Path, runs: int) -> list[dict[str, float]]:
    settings = base.model_copy(update={"data_dir": base.data_dir / mode})
    if mode == "s3":
        settings = settings.model_copy(update={"storage_url": "s3://bench/narrate"})
    # Built once, as each process of the fleet builds them once (boto3's client included).
    service = wiring.job_service(settings)
    steps = wiring.worker_steps(settings, wiring.celery(settings))
    pinyin.warm(misses=True)  # what a worker process loads before its first task
    audio.preload()
    return [one_job(service, steps, video, f"{mode}{i}") for i in range(runs)]


def table(local: list[dict[str, float]], s3: list[dict[str, float]]) -> None:
    def warm(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in rows[1:]) if len(rows) > 1 else float("nan")

    print(f"{'':10} {'local cold':>10} {'s3 cold':>9} {'added':>7}   "
          f"{'local warm':>10} {'s3 warm':>9} {'added':>7}")  # fmt: skip
    for key in (*STAGES, "job"):
        lc, sc, lw, sw = local[0][key], s3[0][key], warm(local, key), warm(s3, key)
        print(f"{key:10} {lc:9.2f}s {sc:8.2f}s {sc - lc:+6.2f}s   "
              f"{lw:9.2f}s {sw:8.2f}s {sw - lw:+6.2f}s")  # fmt: skip
    for key in ("put_mb", "get_mb"):
        print(f"{key:10} {'':>10} {s3[0][key]:8.2f}MB {'':>7}   {'':>10} {warm(s3, key):8.2f}MB")
    print(f"ratio s3/local per job: cold {s3[0]['job'] / local[0]['job']:.2f}x, "
          f"warm {warm(s3, 'job') / warm(local, 'job'):.2f}x")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="jobs per storage (first: cold)")
    args = parser.parse_args()
    import os

    import boto3
    from moto.server import ThreadedMotoServer

    os.environ.update(AWS)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's request log
    s3_port, redis_port = free_port(), free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=s3_port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{s3_port}"
    boto3.client("s3", endpoint_url=url, region_name="us-east-1").create_bucket(Bucket="bench")
    with tempfile.TemporaryDirectory(prefix="narrate-bench-") as tmp:
        redis_proc = subprocess.Popen(redis_argv(redis_port, Path(tmp)), stdout=subprocess.DEVNULL)
        try:
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
            wait_for_redis(redis_url)
            video = make_video(Path(tmp, "gagar.mp4"), 62)
            print(f"job: {GAGAR.name}, video {video.stat().st_size / 1e6:.2f} MB 1080x1920 62 s; "
                  f"{args.runs} jobs per storage (the first cold)\n")  # fmt: skip
            base = Settings(data_dir=Path(tmp), redis_url=redis_url, s3_endpoint_url=url)
            run("warmup", base, video, 1)  # first runs of espeak, ffmpeg, caches: not timed
            results: dict[str, Any] = {m: run(m, base, video, args.runs) for m in ("local", "s3")}
            table(results["local"], results["s3"])
        finally:
            redis_proc.kill()
            redis_proc.wait()
            server.stop()


if __name__ == "__main__":
    main()

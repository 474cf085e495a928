"""SIGTERM to a real worker mid-segment (the step held at a gate, so it cannot end by
itself): Celery's soft shutdown waits NARRATE_WORKER_SOFT_SHUTDOWN_TIMEOUT, cancels the step
and the worker leaves, its message back in the queue at once; the other worker runs the
segment and the job's artifacts are those of a clean run. Neither the heartbeat's hand-back
(dead after 600 s here) nor the visibility timeout (720 s) can be what brings it back.
Before: the warm shutdown waited for the held step, the message stayed with the stopping
worker, and a pod's SIGKILL would have stranded it until one of those."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devtools.stack import until
from tests.support.stack import Stack, start_stack, submit, wait_for

SCRIPT = "[段 1 · 2 秒] 软关机 SEGHOLDSOFT 第一段。\n\n[段 2 · 2 秒] 第二段,照常。"


@pytest.fixture(scope="module")
def soft(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(
        tmp_path_factory.mktemp("soft"),
        workers=2,
        faults="gates",
        worker_soft_shutdown_timeout=1,
        worker_dead_after=600,
        webhook_lease=700,
    )
    yield s
    s.stop()


def download(c: httpx.Client, job: dict[str, object]) -> dict[str, bytes]:
    links = job["links"]
    assert isinstance(links, dict)
    return {name: c.get(url).content for name, url in links["artifacts"].items()}


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_sigterm_mid_segment_hands_the_step_to_another_worker(soft: Stack) -> None:
    gate, r = soft.gate("SOFT"), soft.redis()
    with soft.client() as c:
        gate.open()
        clean = wait_for(c, submit(c, SCRIPT).json()["id"])
        assert clean["status"] == "succeeded", clean["error"]
        gate.close()
        job_id = submit(c, SCRIPT).json()["id"]
        gate.reached()
        seg = until(lambda: json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}"))
        main = parent(seg["pid"])
        (name,) = [n for n, p in soft.worker_pids().items() if p == main]
        gate.close()  # forget the arrival: the next one is the other worker's
        stopped = time.monotonic()
        os.kill(main, signal.SIGTERM)
        assert soft.procs[name].wait(timeout=60) is not None  # it left, the step unfinished
        gate.reached(timeout=60)  # the other worker took it: handed back, not stranded
        print(f"\nSIGTERM to the step running elsewhere: {time.monotonic() - stopped:.1f} s")
        again = json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}")
        assert parent(again["pid"]) != main and again["deliveries"] == 2
        gate.open()
        job = wait_for(c, job_id)
        assert job["status"] == "succeeded", job["error"]
        assert r.hget(f"narrate:job:{job_id}:deliveries", "finalize") == "1"
        assert download(c, job) == download(c, clean)  # one output, as a clean run's

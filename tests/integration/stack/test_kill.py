"""A worker process SIGKILLed while it holds a segment: the task is redelivered and the job's
artifacts come out byte-identical to a clean run's."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from devtools.stack import until
from tests.support.data import SHORT_SCRIPT
from tests.support.stack import Stack, start_stack, submit, wait_for


@pytest.fixture(scope="module")
def slow_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # A segment that names a gate holds its worker there, so the test kills it mid-segment.
    # The heartbeat scaled down (a beat every 0.5 s, dead after 5 s) for the dead main
    # process's test; a pool child's death leaves its main process beating.
    s = start_stack(
        tmp_path_factory.mktemp("slow"), faults="gates", worker_heartbeat=0.5, worker_dead_after=5
    )
    yield s
    s.stop()


HELD = SHORT_SCRIPT.replace("再叠 GRPO", "再叠 GRPO SEGHOLDKILL")


def download(c: httpx.Client, job: dict[str, Any]) -> dict[str, bytes]:
    return {name: c.get(url).content for name, url in job["links"]["artifacts"].items()}


def test_sigkill_mid_segment_is_redelivered_and_identical(
    slow_stack: Stack, short_video: Path
) -> None:
    gate = slow_stack.gate("KILL")
    with slow_stack.client() as c:
        gate.open()  # the clean run passes through
        clean = wait_for(c, submit(c, HELD, short_video).json()["id"])
        assert clean["status"] == "succeeded", clean["error"]
        gate.close()
        job_id = submit(c, HELD, short_video).json()["id"]
        gate.reached()  # segment 1 is running, held
        r = redis.Redis.from_url(slow_stack.env["NARRATE_REDIS_URL"], decode_responses=True)
        raw = until(lambda: json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}"))
        pid = raw["pid"]
        assert pid not in slow_stack.worker_pids().values()  # the pool child, not the main process
        os.kill(pid, signal.SIGKILL)
        gate.open()  # the redelivery goes through
        job = wait_for(c, job_id)
        assert job["status"] == "succeeded", job["error"]
        raw = json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}")
        assert raw["deliveries"] >= 2  # it really was redelivered
        assert download(c, job) == download(c, clean)


def test_a_dead_worker_main_is_redelivered_within_a_minute(slow_stack: Stack) -> None:
    """SIGKILL a worker's main process (and its pool child) mid-segment, at the default
    visibility timeout (720 s) with the heartbeat scaled down (a beat every 0.5 s, dead after
    5 s): the other worker runs the segment again within a minute, one more delivery. Before:
    nothing noticed until kombu's visibility timeout, 12 minutes later. (Last in the module:
    it leaves the stack one worker.)"""
    s = slow_stack
    r = s.redis()
    with s.client() as c:
        job_id = submit(c, "[段 1 · 3 秒] 评分员对通过的轨迹排序 SEGHOLDMAIN。").json()["id"]
        s.gate("MAIN").reached()
        seg: dict[str, Any] = until(
            lambda: json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}")
        )
        victim = seg["worker"].split("@")[0]
        kill_whole_worker(s, victim, seg["pid"])
        s.gate("MAIN").open()
        killed_at, killed_wall = time.monotonic(), time.time()
        job = wait_for(c, job_id, timeout=60)
        took = time.monotonic() - killed_at
    assert job["status"] == "succeeded", job["error"]
    seg = json.loads(r.hget(f"narrate:job:{job_id}:seg", "0"))
    assert seg["worker"].split("@")[0] != victim and seg["deliveries"] == 2
    assert took < 60, took
    again = seg["started"] - killed_wall
    print(f"segment started again {again:.1f} s after the kill, job done after {took:.1f} s")


def kill_whole_worker(s: Stack, worker: str, child: int) -> None:
    """The main worker process (no parent left to requeue its task), then its pool child."""
    s.kill(worker)
    os.kill(child, signal.SIGKILL)

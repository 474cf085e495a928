"""A worker process SIGKILLed while it holds a segment, or a task delivered twice at once: the
task is redelivered (or its copy taken) and the job's artifacts come out byte-identical to a
clean run's."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from celery import Celery

from devtools.stack import until
from service import wiring
from service.adapters.redis.queue import CeleryQueue
from service.config import Settings
from service.domain.job import Job
from service.domain.script import parse_script
from service.domain.spec import RenderOptions
from service.jobs.service import JobService, Submission
from service.ports import NewJob
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


ORDER = {"queued": 0, "running": 1, "succeeded": 2, "failed": 2, "canceled": 2}
TWICE = "[段 1 · 3 秒] 重复投递的第一段。\n\n[段 2 · 3 秒] 重复投递的第二段 FINHOLDDUP。"


class Twice(CeleryQueue):
    def send(self, name: str, args: list[Any]) -> None:
        # Both copies are queued together, before any worker can have finished the first.
        for _ in range(2):
            self.app.send_task(name, args=args, queue="narrate")


def doubling_service(stack: Stack) -> JobService:
    """A job service whose submit pushes each segment task twice (a second delivery tag, the
    same task, as a redelivery would)."""
    settings = Settings(redis_url=stack.env["NARRATE_REDIS_URL"], data_dir=stack.data_dir)
    service = wiring.job_service(settings, Twice(Celery(broker=stack.env["NARRATE_REDIS_URL"])))
    create = service.store.records.create

    def create_twice(new: NewJob) -> tuple[Job, bool]:
        doubled: list[str] = []
        for m in new.messages:
            copy = json.loads(m)
            copy["properties"]["delivery_tag"] = uuid.uuid4().hex
            doubled += [m, json.dumps(copy)]
        return create(dataclasses.replace(new, messages=doubled))

    service.store.records.create = create_twice  # type: ignore[method-assign]
    return service


def test_same_task_delivered_twice_at_once(slow_stack: Stack) -> None:
    """Each segment task delivered twice, the copies to both workers at once: the job ends
    once, moving only forward, with a clean run's artifacts. The finalize waits at a gate
    until every copy has been taken (a copy taken after the job's end is dropped uncounted,
    rightly: without the gate, a loaded host decided whether the count was 1 or 2)."""
    gate = slow_stack.gate("DUP")
    service = doubling_service(slow_stack)
    r = slow_stack.redis()
    with slow_stack.client() as c:
        gate.open()
        clean = wait_for(c, submit(c, TWICE).json()["id"])
        gate.close()
        options = RenderOptions(engine="espeak")
        submitted = service.submit(
            Submission("alpha", service.new_id(), parse_script(TWICE), options)
        )
        job_id = submitted[0].id
        seen: list[str] = []

        def delivered_twice() -> bool:
            seen.append(c.get(f"/v1/jobs/{job_id}").json()["status"])
            counts = r.hgetall(f"narrate:job:{job_id}:deliveries")
            return all(counts.get(f"segment:{i}") == "2" for i in range(2))

        until(delivered_twice, 120, "both copies of both segments taken")
        gate.open()
        job = wait_for(c, job_id)
        seen.append(job["status"])
        assert job["status"] == "succeeded", job["error"]
        assert all(ORDER[a] <= ORDER[b] for a, b in itertools.pairwise(seen))  # only forward
        assert r.hget(f"narrate:job:{job_id}:deliveries", "finalize") == "1"  # finalized once
        mine = {n: c.get(u).content for n, u in job["links"]["artifacts"].items()}
        theirs = {n: c.get(u).content for n, u in clean["links"]["artifacts"].items()}
    assert mine == theirs


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

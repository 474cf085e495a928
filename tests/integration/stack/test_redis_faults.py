"""Redis failures, and the reconciler: kill -9 with AOF, Redis down at submit, stalled jobs,
a backlog that is only waiting, a Redis error inside a task."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from service import wiring
from service.config import Settings
from tests.support.data import ROOT
from tests.support.stack import Stack, start_stack, submit, wait_for

SCRIPT = "[段 1 · 3 秒] 评分员对通过的轨迹排序。"


@pytest.fixture
def idle_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Redis and the API, but no worker yet: jobs stay queued until a test starts one."""
    s = start_stack(tmp_path_factory.mktemp("redis"), workers=0)
    yield s
    s.stop()


def test_redis_kill_9_loses_no_queued_job_or_record(idle_stack: Stack) -> None:
    s = idle_stack
    with s.client() as c:
        ids = [submit(c, SCRIPT.replace("排序", f"排序{i}")).json()["id"] for i in range(3)]
        before = {i: c.get(f"/v1/jobs/{i}").json() for i in ids}
    s.kill("redis")  # SIGKILL: no chance to write anything more
    s.start_redis()  # same --dir: the AOF is replayed
    s.start_worker("worker1")  # one: the jobs are what the AOF kept, not how many run them
    s.wait_ready(1)
    with s.client() as c:
        for job_id in ids:
            job = wait_for(c, job_id, timeout=60)
            assert job["status"] == "succeeded", job["error"]
            assert (job["created"], job["title"]) == (
                before[job_id]["created"],
                before[job_id]["title"],
            )


def test_redis_down_at_submit_is_503_and_leaves_nothing(idle_stack: Stack) -> None:
    s = idle_stack
    s.kill("redis")
    with s.client() as c:
        r = submit(c, SCRIPT)
        assert r.status_code == 503 and r.headers["Retry-After"]
    assert not list(s.data_dir.glob("artifacts/*/*"))  # the refused job's upload dir is gone
    s.start_redis()
    s.start_worker("worker1")
    s.wait_ready(1)
    t = time.monotonic()
    with s.client() as c:
        assert c.get("/v1/jobs").json()["jobs"] == []  # no orphan record
        job = wait_for(c, submit(c, SCRIPT).json()["id"], timeout=30)
    assert job["status"] == "succeeded" and time.monotonic() - t < 30


def test_reconciler_requeues_lost_work_and_times_out_old_jobs(idle_stack: Stack) -> None:
    s = idle_stack
    r = s.redis()
    with s.client() as c:
        lost = submit(c, SCRIPT).json()["id"]
        # The broker lost the tasks (a crash between record and enqueue): waiting in the
        # tenant's lane (no worker runs, so no dispatcher) or in the queue.
        r.delete("narrate", "narrate:lane:alpha")
        old = submit(c, SCRIPT.replace("排序", "超时")).json()["id"]
    settings = Settings(redis_url=s.env["NARRATE_REDIS_URL"], data_dir=s.data_dir, job_timeout=3600)
    svc = wiring.reconciler(settings)
    created = float(r.hget(f"narrate:job:{old}", "created"))
    # This one started an hour ago and is still not done: too long. The lost one was queued
    # an hour ago too, but never started: waiting its turn in a backlog is no failure.
    started = json.dumps({"state": "running", "started": created - 3601})
    r.hset(f"narrate:job:{old}:seg", "0", started)
    r.hset(f"narrate:job:{lost}", "created", created - 3601)
    assert svc.reconcile(now=time.time()) == {"timed_out": 1, "requeued": 0}  # not stale yet
    counts = svc.reconcile(now=time.time() + settings.visibility_timeout + 1)
    assert counts == {"timed_out": 0, "requeued": 1}
    s.start_worker("worker1")
    s.wait_ready(1)
    with s.client() as c:
        assert wait_for(c, lost, timeout=60)["status"] == "succeeded"
        timed_out = c.get(f"/v1/jobs/{old}").json()
    assert timed_out["status"] == "failed" and timed_out["error"]["message"].startswith("timed out")
    assert svc.jobs.active.active() == []


@contextlib.contextmanager
def reconciling(s: Stack, interval: float = 1.0) -> Iterator[None]:
    """`narrate reconcile --interval` running against the stack, as `narrate serve` runs it."""
    log = (s.data_dir / "reconciler.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "reconcile", "--interval", str(interval)],
        env=s.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_a_backlog_alone_is_never_requeued_or_failed(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A day's batch with the visibility timeout compressed 48x (15 s instead of 720 s; the
    reconciler every second): one worker, 20 one-segment jobs of ~2 s each, so the last
    waits ~3 visibility timeouts in its lane. Every job succeeds, each step delivered once,
    and the queue never grows. Before: waiting jobs were "stalled", requeued again and
    again, and failed "worker lost each time". The time limits stay the defaults: a task is
    never near them (compressed to 4 s, a segment on a loaded host once hit the soft limit),
    and a task still has ~7x its own time before its message would be redelivered."""
    s = start_stack(
        tmp_path_factory.mktemp("backlog"), workers=1, faults="segment_sleep=1.5",
        visibility_timeout_override=15,
    )  # fmt: skip
    r = s.redis()
    try:
        with s.client() as c, reconciling(s):
            ids = [submit(c, SCRIPT.replace("排序", f"排序{i}")).json()["id"] for i in range(20)]
            most = r.llen("narrate")
            deadline = time.monotonic() + 240
            states = [c.get(f"/v1/jobs/{i}").json() for i in ids]
            while any(j["status"] in ("queued", "running") for j in states):
                assert time.monotonic() < deadline, [j["status"] for j in states]
                assert not [j["error"] for j in states if j["status"] == "failed"]
                most = max(most, r.llen("narrate"))
                time.sleep(0.5)
                states = [c.get(f"/v1/jobs/{i}").json() for i in ids]
        assert [j["status"] for j in states] == ["succeeded"] * 20, [j["error"] for j in states]
        assert most <= 20, most  # nothing was enqueued twice
        for job_id in ids:
            assert r.hgetall(f"narrate:job:{job_id}:deliveries") == {
                "segment:0": "1",
                "finalize": "1",
            }
    finally:
        s.stop()


def test_a_redis_error_inside_a_task_hands_its_message_back(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Redis stops taking writes (CLIENT PAUSE WRITE, as in a failover) while a segment runs,
    for longer than NARRATE_REDIS_TIMEOUT: the segment's write fails with a Redis error, its
    message goes back to the queue, and the job succeeds on the next delivery, with no
    reconciler. Before: Celery discarded the message and the job sat "running"."""
    s = start_stack(
        tmp_path_factory.mktemp("redis-error"), workers=1, faults="gates",
        redis_timeout=1,
    )  # fmt: skip
    r = s.redis()
    try:
        with s.client() as c:
            job_id = submit(c, SCRIPT.replace("排序", "排序 SEGHOLDPAUSE")).json()["id"]
            s.gate("PAUSE").reached()  # the segment is running, held
            with s.writes_paused():
                s.gate("PAUSE").open()
                s.logged("the task goes back to the queue")  # the step's next write timed out
            job = wait_for(c, job_id, timeout=60)
        assert job["status"] == "succeeded", job["error"]
        assert r.hget(f"narrate:job:{job_id}:deliveries", "segment:0") == "2"
    finally:
        s.stop()

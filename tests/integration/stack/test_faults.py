"""Workers that die: a whole worker killed mid-finalize, and a task that kills its worker
every time. Time limits are shortened here (soft 8 s, hard 9 s, so visibility 18 s): short
enough to watch redelivery, long enough for a segment on a loaded 2-core machine."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator

import pytest

from tests.support.helpers import eventually
from tests.support.stack import Stack, start_stack, submit, wait_for

SCRIPT = "[段 1 · 3 秒] 评分员对通过的轨迹排序。\n\n[段 2 · 3 秒] 低排名降权,优势重新分配。"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(
        tmp_path_factory.mktemp("faults"),
        faults="crash_on=CRASH,bug_on=BUG",
        task_soft_time_limit=8,
        task_time_limit=9,
        restore_interval=2,
    )
    yield s
    s.stop()


def test_whole_worker_killed_mid_finalize_another_finishes(stack: Stack) -> None:
    r = stack.redis()
    with stack.client() as c:
        job_id = submit(c, SCRIPT.replace("排序", "排序 FINHOLDKILL")).json()["id"]
        stack.gate("KILL").reached()  # finalize is running, held
        victim = r.hget(f"narrate:job:{job_id}", "finalize_worker").split("@")[0]
        killed_at = time.monotonic()
        stack.kill(victim)  # the main worker process: no parent left to requeue the task
        os.kill(int(r.hget(f"narrate:job:{job_id}", "finalize_pid")), signal.SIGKILL)
        stack.gate("KILL").open()  # the redelivered finalize goes through
        job = wait_for(c, job_id, timeout=90)
        took = time.monotonic() - killed_at
    assert job["status"] == "succeeded", job["error"]
    finisher = r.hget(f"narrate:job:{job_id}", "finalize_worker").split("@")[0]
    assert finisher != victim
    # visibility_timeout (18 s) + the restore interval (2 s) + the finalize itself (room for
    # a loaded host), far under the hour a lost task would wait without the restore
    assert took < 18 + 2 + 40, took
    assert int(r.hget(f"narrate:job:{job_id}:deliveries", "finalize")) == 2
    # The killed finalize's staging directory is cleaned up with the rest of the work.
    job_dir = stack.data_dir / "artifacts" / "alpha" / job_id
    assert sorted(p.name for p in job_dir.iterdir()) == ["artifacts"]


def test_a_bug_in_a_step_fails_the_job_at_once_with_the_real_error(stack: Stack) -> None:
    with stack.client() as c:
        job_id = submit(c, SCRIPT + "\n\n[段 3 · 3 秒] 这一段触发 BUG。").json()["id"]
        job = wait_for(c, job_id, timeout=60)
    assert job["status"] == "failed"
    assert job["error"] == {
        "code": "internal",
        "message": "segment 3 failed: internal error: OverflowError: math range error (injected)",
        "segment": 3,
    }
    # At once: on its first delivery, not after the delivery cap's three.
    assert stack.redis().hget(f"narrate:job:{job_id}:deliveries", "segment:2") == "1"
    # A failed job leaves no directory behind (no work files, no empty folders), once the
    # other segments stop at their next check.
    where = stack.data_dir / "artifacts" / "alpha" / job_id
    eventually(lambda: not where.exists(), "the failed job's files are gone")


def test_task_that_always_crashes_its_worker_fails_the_job(stack: Stack) -> None:
    with stack.client() as c:
        job_id = submit(c, "[段 1 · 3 秒] 这一段会让 CRASH 工人崩溃。").json()["id"]
        job = wait_for(c, job_id, timeout=300)  # 3 visibility timeouts and restarts
    assert job["status"] == "failed"
    assert "segment 1 was started 3 times and never finished" in job["error"]["message"]
    assert (job["error"]["code"], job["error"]["segment"]) == ("worker.lost", 1)
    deliveries = json.loads(json.dumps(stack.redis().hgetall(f"narrate:job:{job_id}:deliveries")))
    assert int(deliveries["segment:0"]) == 4  # 3 crashes, and the 4th delivery refuses to run

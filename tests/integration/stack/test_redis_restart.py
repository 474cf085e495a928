"""A Redis restart mid-job (the stack's own redis-server, AOF on, SIGKILLed and started again
on its data while a segment runs, held at a gate): the worker loses its connection, Celery
cancels the running step (worker_cancel_long_running_tasks_on_connection_loss) and kombu's
restore of its message runs while Redis is down, so the message stays in kombu's unacked
hash with no worker holding it. The fleet's orphan sweep hands it back once no worker's
heartbeat claims it: the job succeeds within a minute, at the default visibility timeout
(720 s) that alone would have stranded it for 12 minutes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from devtools.stack import until
from tests.support.stack import Stack, start_stack, submit, wait_for

# One segment: the held step is the only message in flight at the kill. A second one being
# popped at that instant is lost inside kombu's Redis transport (BRPOP, then the unacked
# record: a crash between them leaves the message nowhere), which only the reconciler's
# stalled-job sweep recovers; that is another fault than this test's (docs/RELIABILITY.md).
SCRIPT = "[段 1 · 2 秒] 重启 SEGHOLDRESTART 第一段。"


@pytest.fixture(scope="module")
def restarting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("restart"), workers=2, faults="gates")
    yield s
    s.stop()


def test_a_job_in_flight_at_a_redis_restart_finishes_within_a_minute(restarting: Stack) -> None:
    s, gate = restarting, restarting.gate("RESTART")
    with s.client() as c:
        job_id = submit(c, SCRIPT).json()["id"]
        gate.reached()
        r = s.redis()
        until(lambda: r.hlen("unacked"), 30, "the held step's message in kombu's unacked hash")
        s.kill("redis")  # a crash: nothing more written; the AOF has every write before it
        restarted = time.monotonic()
        s.start_redis()
        gate.open()  # the step's next delivery goes through
        # Decided well under the 720 s visibility timeout that would strand it without the
        # sweep; how long it took is printed (16.7 s on a quiet host), not asserted.
        job = wait_for(c, job_id, timeout=180)
        took = time.monotonic() - restarted
        print(f"\njob succeeded {took:.1f} s after the Redis restart")
        assert job["status"] == "succeeded", job["error"]
        r = s.redis()
        seg = json.loads(r.hget(f"narrate:job:{job_id}:seg", "0") or "{}")
        assert seg["deliveries"] == 2  # cancelled at the connection loss, run once more
        assert r.hget(f"narrate:job:{job_id}:deliveries", "finalize") == "1"
        assert r.hlen("unacked") == 0 and r.llen("narrate") == 0  # nothing left behind
        for name in ("worker1", "worker2"):
            assert s.procs[name].poll() is None  # both workers' main processes still run

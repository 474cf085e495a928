"""Fair share on a real stack (redis-server on its own port, two Celery workers, the API):
a dispatcher SIGKILLed mid-batch loses and duplicates no job (every step delivered exactly
once, every job succeeds) and a worker's dispatcher takes the lease over; a late tenant's
jobs are interleaved with the backlog rather than queued behind it; a tenant at its
max-running gets its queued jobs dispatched one at a time; the dispatcher's lease
holder dying with its worker hands both the lease and the worker's task on. And a batch on
the same stack: its event stream follows the items to ``completed``, and ``batch.completed``
reaches a real receiver once."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from devtools.receiver import Receiver
from tests.support.helpers import eventually
from tests.support.stack import Stack, start_stack, wait_for
from tests.unit.api.test_events import parse_sse

LEASE, LANE = "narrate:dispatcher", "narrate:lane:"
SPEC: dict[str, Any] = {
    "title": "fair",
    "language": "zh",
    "segments": [{"text": "评分员排序。", "seconds": 1}, {"text": "保持不变。", "seconds": 1}],
    "options": {"engine": "espeak"},
}


@pytest.fixture(scope="module")
def fair(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Stack, subprocess.Popen[bytes]]]:
    tmp = tmp_path_factory.mktemp("fair")
    s = start_stack(
        tmp, workers=0, faults="gates", dispatch_lease=1,
        worker_heartbeat=0.5, worker_dead_after=3, webhook_allow_private=True,
    )  # fmt: skip
    log = (tmp / "dispatch.log").open("wb")
    narrate = str(Path(sys.executable).parent / "narrate")
    disp = subprocess.Popen([narrate, "dispatch"], env=s.env, stdout=log, stderr=subprocess.STDOUT)
    try:
        # The dispatcher of its own holds the lease before any worker asks for it.
        eventually(lambda: (s.redis().get(LEASE) or "").startswith("dispatch@"), "lease taken")
        s.start_worker("worker1")
        s.start_worker("worker2")
        s.wait_ready(2)
        yield s, disp
    finally:
        if disp.poll() is None:
            disp.kill()
        s.stop()


def held(gate: str) -> dict[str, Any]:
    """SPEC, its first segment held at ``gate`` (tests/support/faults.py)."""
    first = {"text": f"评分员排序 SEGHOLD{gate}。", "seconds": 6}  # the gate's letters are spoken
    return {**SPEC, "segments": [first, *SPEC["segments"][1:]]}


def submit(c: httpx.Client, n: int, held_at: str = "", hold: int = 0) -> list[str]:
    """``n`` jobs of SPEC, the first ``hold`` of them held at gate ``held_at``."""
    out = []
    for i in range(n):
        r = c.post("/v1/jobs", json=held(held_at) if i < hold else SPEC)
        assert r.status_code == 202, r.text
        out.append(r.json()["id"])
    return out


def first_start(r: Any, job_id: str) -> float:
    """When the job's first segment started (the worker's record of it)."""
    return min(float(json.loads(v)["started"]) for v in r.hvals(f"narrate:job:{job_id}:seg"))


def test_a_dispatcher_killed_mid_batch_loses_and_duplicates_no_job(
    fair: tuple[Stack, subprocess.Popen[bytes]],
) -> None:
    s, disp = fair
    r = s.redis()
    with s.client("alpha") as a, s.client("beta") as b:
        # Alpha's first two jobs hold both workers: the rest of the batch waits its turn.
        alpha, beta = submit(a, 6, "DISPATCH", hold=2), submit(b, 2)
        s.gate("DISPATCH").reached()
        assert r.llen(LANE + "alpha") > 0  # mid-batch: alpha's later jobs wait in its lane
        disp.kill()  # SIGKILL
        disp.wait()
        s.gate("DISPATCH").open()
        eventually(lambda: (r.get(LEASE) or "").startswith("worker"), "a worker took the lease")
        jobs = [wait_for(a, j) for j in alpha] + [wait_for(b, j) for j in beta]
        assert [j["status"] for j in jobs] == ["succeeded"] * 8, [j["error"] for j in jobs]
        for j in alpha + beta:  # each step delivered exactly once: none lost, none twice
            assert r.hgetall(f"narrate:job:{j}:deliveries") == {
                "segment:0": "1", "segment:1": "1", "finalize": "1",
            }  # fmt: skip
        assert r.llen("narrate") == 0 and not r.keys(LANE + "*")
        # beta came after alpha's six, yet both its jobs started before alpha's last did.
        assert max(first_start(r, j) for j in beta) < first_start(r, alpha[-1])
        text = httpx.get(f"{s.url}/metrics").text  # on loopback: no token needed
        assert 'narrate_tenant_wait_seconds_count{tenant="alpha"} 6.0' in text
        assert 'narrate_tenant_wait_seconds_count{tenant="beta"} 2.0' in text


def test_a_tenant_at_its_max_running_gets_its_batch_dispatched_one_job_at_a_time(
    fair: tuple[Stack, subprocess.Popen[bytes]],
) -> None:
    s, _ = fair
    r = s.redis()
    key = s.keystore().create("gamma", {"max_running": 1})
    spec = {k: v for k, v in SPEC.items() if k != "options"}
    body = {"items": [{"name": f"i{i}", "spec": spec} for i in range(3)]}
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=s.url, headers=headers, timeout=60) as g:
        made = g.post("/v1/batches", json=body | {"options": {"engine": "espeak"}})
        assert made.status_code == 202, made.text  # a batch: admitted at once, all queued
        jobs = [i["job"] for i in made.json()["items"]]
        found = [wait_for(g, j) for j in jobs]
    assert [j["status"] for j in found] == ["succeeded"] * 3, [j["error"] for j in found]
    # Two workers were free, yet each job started only once the one before had ended.
    spans = sorted((first_start(r, j), float(r.hget(f"narrate:job:{j}", "updated"))) for j in jobs)
    for (_, ended), (started, _) in itertools.pairwise(spans):
        assert started >= ended


def test_the_lease_holders_worker_killed_hands_on_the_lease_and_its_task(
    fair: tuple[Stack, subprocess.Popen[bytes]],
) -> None:
    s, _ = fair
    r = s.redis()
    holder = str(r.get(LEASE))
    assert holder.startswith("worker")  # (the first test ends with a worker holding it)
    victim = holder.split("@")[0]
    with s.client("alpha") as a:
        jobs = submit(a, 4, "LEASE", hold=2)  # both workers hold a task as the victim dies
        s.gate("LEASE").reached()
        s.kill(victim)
        eventually(lambda: not str(r.get(LEASE) or victim).startswith(victim), "lease moved", 60)
        s.gate("LEASE").open()
        found = [wait_for(a, j) for j in jobs]
    assert [j["status"] for j in found] == ["succeeded"] * 4, [j["error"] for j in found]
    counts = [int(n) for j in jobs for n in r.hvals(f"narrate:job:{j}:deliveries")]
    assert len(counts) == 12 and sum(counts) <= 12 + 1  # at most the one task it held, again


def test_a_batchs_events_and_its_completed_webhook_on_the_real_stack(
    fair: tuple[Stack, subprocess.Popen[bytes]],
) -> None:
    s, _ = fair
    receiver = Receiver().start()
    try:
        with s.client("beta") as b:
            hook = b.post("/v1/webhooks", json={"url": receiver.url, "events": ["batch.completed"]})
            spec = {k: v for k, v in SPEC.items() if k != "options"}
            items = [{"name": n, "spec": spec} for n in ("one", "two")]
            made = b.post("/v1/batches", json={"items": items, "options": {"engine": "espeak"}})
            assert made.status_code == 202, made.text
            batch = made.json()
            with b.stream("GET", f"/v1/batches/{batch['id']}/events") as r:
                events = parse_sse(r.read().decode())  # the stream ends after "completed"
            eventually(lambda: len(receiver.delivered()) == 1, "batch.completed delivered", 30)
    finally:
        receiver.stop()
    assert events[0][1] == "snapshot" and events[-1][1] == "completed"
    assert events[-1][2]["counts"] == {"succeeded": 2, "total": 2}
    ended = {e[2]["job"] for e in events if e[1] == "item" and e[2]["status"] == "succeeded"}
    assert ended == {i["job"] for i in batch["items"]}
    ((msg_id, req),) = receiver.delivered().items()
    body = Webhook(hook.json()["secret"]).verify(req.body, req.headers)
    assert body["data"]["batch_id"] == batch["id"] and body["data"]["counts"]["succeeded"] == 2
    assert receiver.tries[msg_id] == 1

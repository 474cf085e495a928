"""The backlog gauge on a held fleet: two real workers each held mid-segment at a gate, more
tasks waiting in the tenants' lanes and the queue; /metrics' narrate_backlog_tasks says
exactly how many wait and run (while the queue's own length, what KEDA's Redis-list trigger
reads, stays at the dispatcher's window), and narrate_desired_workers the workers they need."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devtools.stack import until
from tests.support.stack import Stack, start_stack, submit, wait_for

JOBS, SEGMENTS, WORKERS = 3, 2, 2
SCRIPT = "\n\n".join(
    f"[段 {i} · 2 秒] 积压 SEGHOLDBACKLOG 第{i}段。" for i in range(1, SEGMENTS + 1)
)


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(
        tmp_path_factory.mktemp("backlog"), workers=WORKERS, faults="gates", autoscale_concurrency=2
    )
    yield s
    s.stop()


def figures(stack: Stack) -> dict[str, float]:
    text = httpx.get(stack.url + "/metrics", timeout=30).text
    found = {
        state: float(n)
        for state, n in re.findall(
            r'^narrate_backlog_tasks\{queue="narrate",state="(\w+)"\} (\S+)$', text, re.M
        )
    }
    desired = re.search(r'^narrate_desired_workers\{queue="narrate"\} (\S+)$', text, re.M)
    depth = re.search(r"^narrate_queue_depth (\S+)$", text, re.M)
    assert desired is not None and depth is not None, text
    return found | {"desired": float(desired[1]), "queue": float(depth[1])}


def test_the_gauge_is_the_tasks_waiting_plus_running(held: Stack, tmp_path: Path) -> None:
    alpha = held.client("alpha")
    ids = [submit(alpha, SCRIPT).json()["id"] for _ in range(JOBS)]
    held.gate("BACKLOG").reached()
    # Every segment is held: both workers hold one each, the other four wait (the
    # dispatcher's window in the queue, the rest in alpha's lane).
    want = {"waiting": JOBS * SEGMENTS - WORKERS, "running": WORKERS}
    last: dict[str, float] = {}

    def settled() -> bool:
        last.update(figures(held))
        return {k: last.get(k) for k in want} == want

    until(settled, 60, f"the backlog gauge at {want} (last {last})")
    assert last["desired"] == 3  # ceil((4 + 2) / 2)
    assert last["queue"] <= 1  # the queue's length alone: a list trigger would see 1 at most
    r = held.redis()
    assert last["running"] == r.hlen("unacked")
    lanes = sum(r.llen(k) for k in r.scan_iter("narrate:lane:*"))
    assert last["waiting"] == lanes + r.llen("narrate")
    held.gate("BACKLOG").open()
    for job in ids:
        assert wait_for(alpha, job)["status"] == "succeeded"
    until(lambda: figures(held)["desired"] == 0, 60, "the backlog gauge back at 0")
    assert figures(held) == {"waiting": 0, "running": 0, "desired": 0, "queue": 0}

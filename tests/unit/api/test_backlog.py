"""/metrics' backlog for autoscalers, in-process: the tasks waiting in the tenants' lanes and
the queue, the ones running, and the workers they need. The queue's length alone reads 0 or
1 under fair share however many tasks wait in the lanes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from service import wiring
from service.domain.backlog import Backlog
from tests.unit.api.test_fairshare import keyed, submit


def backlog(text: str) -> dict[str, float]:
    found = re.findall(
        r'^narrate_backlog_tasks\{queue="narrate",state="(\w+)"\} (\S+)$', text, re.M
    )
    desired = re.search(r'^narrate_desired_workers\{queue="narrate"\} (\S+)$', text, re.M)
    assert desired is not None, text
    return {state: float(n) for state, n in found} | {"desired": float(desired[1])}


def test_the_backlog_counts_lanes_queue_and_running_tasks(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path, metrics_token="scrape", autoscale_concurrency=3)
    submit(f, alpha, 3, segments=2)
    submit(f, beta, 1)
    scrape = f.client("scrape")
    before = backlog(scrape.get("/metrics").text)
    assert before == {"waiting": 7, "running": 0, "desired": 3}  # ceil(7 / 3)
    assert "narrate_queue_depth 0.0" in scrape.get("/metrics").text  # what a list trigger sees
    seen: list[dict[str, float]] = []
    run = wiring.run_task(f.steps)

    def first_seen(name: str, args: list[Any]) -> None:
        if not seen:  # while the first task runs
            seen.append(backlog(scrape.get("/metrics").text))
        run(name, args)

    f.queue.drain(first_seen)
    assert seen == [{"waiting": 6, "running": 1, "desired": 3}]
    assert backlog(scrape.get("/metrics").text) == {"waiting": 0, "running": 0, "desired": 0}


def test_desired_workers_is_the_airflow_charts_formula() -> None:
    assert Backlog(0, 0).desired_workers(4) == 0
    assert Backlog(1, 0).desired_workers(4) == 1
    assert Backlog(7, 1).desired_workers(4) == 2
    assert Backlog(7, 2).desired_workers(4) == 3
    assert Backlog(5, 0).desired_workers(1) == 5

"""/metrics against a real stack: scrapes cost a few Redis calls whatever the number of
stored jobs (50 at once leave a job lookup fast), the counts are the real jobs by state
after creates, cancels and deletes (jobs stored before the counters included), and only
the operator may scrape."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from devtools.stack import until
from service.api.app import create_app
from service.config import Settings
from service.domain.job import STATES
from tests.support.stack import Stack, start_stack, submit, wait_for

OLD_JOBS = 3000  # stored before the counters existed: the old scrape read each one
TERMINAL = ("succeeded", "failed", "canceled")


@pytest.fixture(scope="module")
def mstack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("metrics"), workers=1, faults="gates")
    yield s
    s.stop()


def scraped(text: str) -> dict[str, int]:
    found = dict(re.findall(r'^narrate_jobs\{state="(\w+)"\} (\S+)$', text, re.M))
    return {state: int(float(found.get(state, 0))) for state in STATES}


def stored(r: Any) -> dict[str, int]:
    """Jobs by state, read record by record (what each scrape used to do)."""
    counts = dict.fromkeys(STATES, 0)
    for name in r.scan_iter(match="narrate:job:*", count=1000):
        if name.count(":") == 2 and (status := r.hget(name, "status")) in counts:
            counts[status] += 1
    return counts


def seed_old_jobs(stack: Stack) -> None:
    """Job records as the code before the counters stored them (no ``counted`` flag), then
    the API restarted, as after an upgrade."""
    r = stack.redis()
    pipe = r.pipeline(transaction=False)
    for i in range(OLD_JOBS):
        job = uuid.uuid4().hex
        status = TERMINAL[i % 3]
        pipe.hset(f"narrate:job:{job}", mapping={"id": job, "tenant": "old", "status": status})
        pipe.zadd("narrate:tenant:old:jobs", {job: i})
    pipe.delete("narrate:metrics:jobs:backfilled")
    pipe.execute()
    stack.kill("api")
    stack.start_api()
    stack.wait_ready(1)


def scans(r: Any) -> int:
    """SCAN calls Redis has answered so far (a scrape that reads records one by one scans)."""
    return int(r.info("commandstats").get("cmdstat_scan", {}).get("calls", 0))


def test_scrapes_are_cheap_and_counts_are_the_jobs(mstack: Stack) -> None:
    seed_old_jobs(mstack)
    r = mstack.redis()
    until(lambda: r.exists("narrate:metrics:jobs:backfilled"), 60, "the API's backfill")
    alpha = mstack.client("alpha")
    # Held running (the stack's one worker) while the scrapes run and three more jobs queue.
    job = submit(alpha, "[段 1 · 2 秒] 指标 SEGHOLDMETRICS。\n\n[段 2 · 2 秒] 还在跑。").json()[
        "id"
    ]
    mstack.gate("METRICS").reached()
    lookups: list[int] = []
    stop = threading.Event()

    def look() -> None:
        with mstack.client("alpha") as c:
            while not stop.is_set():
                lookups.append(c.get(f"/v1/jobs/{job}").status_code)

    def scrape(path: str) -> tuple[int, float]:
        t = time.monotonic()
        status = httpx.get(mstack.url + path, timeout=60).status_code
        return status, time.monotonic() - t

    scanned = scans(r)
    looker = threading.Thread(target=look)
    looker.start()
    with ThreadPoolExecutor(50) as pool:
        results = list(pool.map(scrape, ["/metrics"] * 50))
    stop.set()
    looker.join()
    print(f"\n50 /metrics at once, {OLD_JOBS} old jobs: slowest {max(t for _, t in results):.2f} s")
    assert [s for s, _ in results] == [200] * 50
    # The counters answer a scrape: no record is scanned (before them every scrape scanned
    # all 3000, and a lookup waited 6.2 s behind the scans).
    assert scans(r) == scanned
    assert lookups and set(lookups) == {200}
    assert alpha.get(f"/v1/jobs/{job}").json()["status"] == "running"  # all while it ran

    # Creates, a cancel while queued (the one worker is held), deletes of a finished and of a
    # canceled job.
    ids = [submit(alpha, f"[段 1 · 1 秒] 第{i}个。").json()["id"] for i in range(3)]
    assert alpha.delete(f"/v1/jobs/{ids[2]}").json()["result"] == "canceled"
    mstack.gate("METRICS").open()
    for j in (job, *ids[:2]):
        wait_for(alpha, j)
    assert alpha.delete(f"/v1/jobs/{ids[0]}").json()["result"] == "deleted"
    assert alpha.delete(f"/v1/jobs/{ids[2]}").json()["result"] == "deleted"
    counts = scraped(httpx.get(mstack.url + "/metrics").text)
    assert counts == stored(r)
    assert counts["succeeded"] == OLD_JOBS // 3 + 2 and counts["queued"] == 0
    assert r.scard("narrate:active") == 0


def test_only_the_operator_may_scrape(mstack: Stack) -> None:
    # Through a proxy on this machine (uvicorn takes the client from X-Forwarded-For).
    proxied = httpx.get(mstack.url + "/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
    assert proxied.status_code == 403 and "NARRATE_METRICS_TOKEN" in proxied.json()["detail"]
    base: dict[str, Any] = {
        "redis_url": mstack.env["NARRATE_REDIS_URL"],
        "data_dir": mstack.data_dir,
    }
    base["allowed_hosts"] = "testserver"
    remote = TestClient(create_app(Settings(**base)))  # its client is not on this machine
    assert remote.get("/metrics").status_code == 403
    with_token = TestClient(create_app(Settings(**base, metrics_token="s3cret-token")))
    assert with_token.get("/metrics").status_code == 401
    wrong = with_token.get("/metrics", headers={"Authorization": "Bearer s3cret-tokex"})
    assert wrong.status_code == 401
    right = with_token.get("/metrics", headers={"Authorization": "Bearer s3cret-token"})
    assert right.status_code == 200 and "narrate_jobs" in right.text

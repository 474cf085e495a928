"""GET /v1/jobs/{id}/events over real Redis, Celery workers and uvicorn: a client that drops
mid-job and reconnects with Last-Event-ID gets every remaining event exactly once, and
/healthz stays fast with many streams open."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.support.stack import start_stack, submit
from tests.unit.api.test_events import parse_sse

# Segment 2 waits at gate DROP until the client has dropped, resumed and heard a heartbeat.
SCRIPT = "\n\n".join(
    f"[段 {i} · 2 秒] 第{i}段,测试事件流{' SEGHOLDDROP' if i == 2 else ''}。" for i in range(1, 4)
)
# Held running (gate LONG) while 200 streams open on it and the test cancels it.
LONG = "[段 1 · 2 秒] 很长的工作 SEGHOLDLONG。"
STREAMS = 200


def read_events(
    client: httpx.Client,
    path: str,
    stop_after: int | None = None,
    after: str | None = None,
    on_heartbeat: Callable[[], None] = lambda: None,
) -> str:
    """The stream's text until it closes, or until ``stop_after`` events with ids (a drop);
    ``on_heartbeat`` runs once, at the first heartbeat."""
    text, seen, beat = "", 0, False
    with client.stream("GET", path, headers={"Last-Event-ID": after} if after else {}) as r:
        assert r.status_code == 200, r.read()
        for chunk in r.iter_text():
            text += chunk
            if not beat and "\n: heartbeat\n" in text:
                beat = True
                on_heartbeat()
            seen = sum(1 for e in parse_sse(text) if e[0])
            if stop_after is not None and seen >= stop_after:
                break
    return text


async def _healthz_under_streams(url: str, key: str, job_id: str) -> float:
    """Open STREAMS streams on ``job_id``, then the slowest of 20 /healthz answers (s)."""
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=STREAMS + 10)
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60) as c:
        opened = [
            await c.send(c.build_request("GET", f"/v1/jobs/{job_id}/events"), stream=True)
            for _ in range(STREAMS)
        ]
        try:
            assert all(r.status_code == 200 for r in opened)
            slowest = 0.0
            for _ in range(20):
                start = time.perf_counter()
                assert (await c.get("/healthz")).status_code == 200
                slowest = max(slowest, time.perf_counter() - start)
            return slowest
        finally:
            await asyncio.gather(*(r.aclose() for r in opened))


def test_a_dropped_stream_resumes_with_last_event_id_missing_nothing(tmp_path: Path) -> None:
    stack = start_stack(
        tmp_path,
        workers=1,
        faults="gates",
        events_poll=0.1,
        events_heartbeat=0.3,
        max_event_streams_per_tenant=STREAMS,  # one tenant opens them all: the process's load
    )
    try:
        with stack.client() as c:
            job_id = submit(c, SCRIPT).json()["id"]
            path = f"/v1/jobs/{job_id}/events"
            stack.gate("DROP").reached()
            first = [e for e in parse_sse(read_events(c, path, stop_after=2)) if e[0]]
            assert first and first[-1][2].get("status") != "succeeded"  # dropped mid-job
            # Held quiet: a heartbeat comes, and only then does the job go on.
            resumed = read_events(c, path, after=first[-1][0], on_heartbeat=stack.gate("DROP").open)
            assert "\n: heartbeat\n" in resumed
            rest = parse_sse(resumed)
            assert rest[-1][1] == "status" and rest[-1][2]["status"] == "succeeded"
            got = [e[0] for e in first] + [e[0] for e in rest if e[0]]
            every = [e[0] for e in parse_sse(read_events(c, path)) if e[0]]
            assert got == every and len(set(every)) == len(every)

            long_id = submit(c, LONG).json()["id"]
            stack.gate("LONG").reached()
            slowest = asyncio.run(_healthz_under_streams(stack.url, stack.keys["alpha"], long_id))
            print(f"/healthz slowest of 20 with {STREAMS} open streams: {slowest * 1000:.1f} ms")
            assert c.delete(f"/v1/jobs/{long_id}").status_code == 200
            ended = parse_sse(read_events(c, f"/v1/jobs/{long_id}/events"))
            assert ended[-1][2]["status"] == "canceled"  # a stream closes after the terminal event
            stack.gate("LONG").open()
    finally:
        stack.stop()


async def _crowd(url: str, keys: dict[str, str], mine: str, theirs: str) -> tuple[list[int], int]:
    """Alpha opens 30 streams on ``mine`` all at once; with those still open, beta opens one
    on ``theirs``. (alpha's statuses, beta's status)."""

    def client(tenant: str) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {keys[tenant]}"}
        limits = httpx.Limits(max_connections=40)
        return httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60)

    async with client("alpha") as a, client("beta") as b:
        path = f"/v1/jobs/{mine}/events"
        opened = await asyncio.gather(
            *(a.send(a.build_request("GET", path), stream=True) for _ in range(30))
        )
        try:
            other = await b.send(b.build_request("GET", f"/v1/jobs/{theirs}/events"), stream=True)
            await other.aclose()
            return [r.status_code for r in opened], other.status_code
        finally:
            await asyncio.gather(*(r.aclose() for r in opened))


def test_one_tenant_opening_streams_at_once_takes_only_its_share(tmp_path: Path) -> None:
    """30 streams opened at once by one tenant against a process limit of 12 and a tenant
    limit of 4: exactly 4 open (the check and the count are one step), the rest 503; the
    other tenant's stream opens meanwhile."""
    stack = start_stack(tmp_path, workers=0, max_event_streams=12, max_event_streams_per_tenant=4)
    try:
        with stack.client("alpha") as a, stack.client("beta") as b:
            mine = submit(a, LONG.replace(" SEGHOLDLONG", "")).json()["id"]
            theirs = submit(b, LONG.replace(" SEGHOLDLONG", "")).json()["id"]
        alpha, beta = asyncio.run(_crowd(stack.url, stack.keys, mine, theirs))
        assert sorted(alpha) == [200] * 4 + [503] * 26, alpha
        assert beta == 200
    finally:
        stack.stop()

"""edge-tts across the worker fleet: the shared connection cap, the shared circuit breaker
with fallback to espeak-ng, and the service end to end with engine `auto`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.edge_server import EdgeServer
from tests.support.helpers import check_render
from tests.support.stack import Stack, start_stack, submit, wait_for


@pytest.fixture(scope="module")
def server() -> Iterator[EdgeServer]:
    s = EdgeServer().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def edge_stack(server: EdgeServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(
        tmp_path_factory.mktemp("edge"),
        edge_wss_url=server.url,
        edge_max_connections=1,
        edge_breaker_failures=3,
        edge_breaker_cooldown=3,
        edge_backoff=0.05,
        # the local server answers at once; 5 s was missed under load and fell back to espeak
        edge_receive_timeout=30,
    )
    yield s
    s.stop()


def script(tag: str, n: int, seconds: int = 12) -> str:
    return "\n\n".join(
        f"[段 {i} · {seconds} 秒] {tag}第{i}段:评分员对通过的轨迹做相对排序,低排名降权。"
        for i in range(1, n + 1)
    )


def test_auto_end_to_end_with_edge(
    edge_stack: Stack, server: EdgeServer, short_video: Path, tmp_path: Path
) -> None:
    server.reset()
    text = "[段 1 · 5 秒] 代码测试通过,再做优化。\n\n[段 2 · 5.5 秒] 评分员排序,优势重新分配。\n\n字幕层叠加限定语:仓库未明确。"
    with edge_stack.client() as c:
        job = wait_for(c, submit(c, text, short_video, {}).json()["id"])  # engine defaults to auto
        assert job["status"] == "succeeded", job["error"]
        assert job["engines"] == ["edge", "edge"], job["warnings"]
        out = tmp_path / "out"
        out.mkdir()
        for name, url in job["links"]["artifacts"].items():
            (out / name).write_bytes(c.get(url).content)
    check_render(out, [5.0, 5.5], (5.0, 10.5))
    assert server.requests >= 2


def test_fleet_wide_connection_cap(edge_stack: Stack, server: EdgeServer) -> None:
    server.reset()
    server.hold = 0.4  # each connection stays open a while: without the cap they would overlap
    with edge_stack.client() as c:
        job = wait_for(c, submit(c, script("并发", 4), None, {"engine": "edge"}).json()["id"])
    assert job["status"] == "succeeded", job["error"]
    assert len({s["worker"] for s in job["segments"]}) == 2  # both workers were asking
    assert server.max_concurrent == 1 and server.served >= 4


def test_breaker_stops_the_fleet_then_closes(edge_stack: Stack, server: EdgeServer) -> None:
    server.reset()
    server.always = "503"
    with edge_stack.client() as c:
        job = wait_for(c, submit(c, script("熔断", 6), None, {}).json()["id"])
        assert job["status"] == "succeeded", job["error"]
        assert job["engines"] == ["espeak"] * 6
        assert any("fell back to espeak" in w["message"] for w in job["warnings"])
        # 6 segments x 3 attempts would be 18 calls; the shared breaker stops them early.
        assert server.requests <= 6, server.requests
        # The cool-down: wait until the fleet's breaker (in Redis) may let a probe through.
        r, deadline = edge_stack.redis(), time.monotonic() + 30
        while time.time() < float(r.get("narrate:guard:edge:open_until") or 0):
            assert time.monotonic() < deadline, "the breaker never reached its half-open time"
            time.sleep(0.05)
        server.always = None
        probe = wait_for(c, submit(c, script("恢复", 1), None, {}).json()["id"])
        assert probe["engines"] == ["edge"]  # the half-open probe went through and succeeded
        after = wait_for(c, submit(c, script("关闭", 2), None, {}).json()["id"])
        assert after["engines"] == ["edge", "edge"]  # closed again for everyone


def test_a_redis_error_in_the_edge_guard_hands_the_message_back(
    server: EdgeServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Redis stops taking writes while a segment is about to take its edge connection slot
    (the guard's script is a write): the guard raises StoreUnavailable, the task hands its
    message back, and the job succeeds on edge at the next delivery, nothing failed or
    fallen back. Without the guard's translation the Redis error is a crash: job failed."""
    server.reset()
    s = start_stack(
        tmp_path_factory.mktemp("edge-guard"), workers=1, faults="gates",
        redis_timeout=1, edge_wss_url=server.url, edge_backoff=0.05, edge_receive_timeout=30,
    )  # fmt: skip
    r = s.redis()
    try:
        with s.client() as c:
            held = script("守卫 SEGHOLDPAUSE ", 1)
            job_id = submit(c, held, None, {"engine": "edge"}).json()["id"]
            s.gate("PAUSE").reached()  # the segment is running, held before its edge slot
            with s.writes_paused():
                s.gate("PAUSE").open()
                s.logged("the task goes back to the queue")  # the slot's script timed out
            job = wait_for(c, job_id, timeout=60)
        assert job["status"] == "succeeded", job["error"]
        assert job["engines"] == ["edge"] and job["warnings"] == []
        assert int(r.hget(f"narrate:job:{job_id}:deliveries", "segment:0") or 0) >= 2
    finally:
        s.stop()

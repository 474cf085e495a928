"""Sentinel failover mid-batch: a primary, its replica and a Sentinel (Debian's
redis-sentinel), of the test's own; the stack (API, 2 workers, its reconciler-free fleet) on
NARRATE_REDIS_URL=sentinel://…/narrate/0 for the store, broker, lanes and events. With a
segment held at a gate and the replica caught up, the primary is SIGKILLed: the Sentinel
promotes the replica, every client finds it, and the batch finishes, every job once."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from devtools.stack import until
from service.cli.stack import redis_argv
from tests.support.stack import free_port, start_stack, submit, wait_for

pytestmark = pytest.mark.skipif(
    not shutil.which("redis-sentinel"), reason="needs Debian's redis-sentinel (scripts/setup.sh)"
)
MASTER = "narrate"
JOBS = 6


def replica_in_sync(primary: redis.Redis, replica: redis.Redis) -> bool:
    """The replica has every write the primary has (their replication offsets agree)."""
    sent = int(primary.info("replication")["master_repl_offset"])
    return int(replica.info("replication")["slave_repl_offset"]) >= sent > 0


@pytest.fixture
def sentinel_set(
    tmp_path: Path,
) -> Iterator[tuple[dict[str, subprocess.Popen[bytes]], int, int, int]]:
    """Primary and replica (AOF each), and one Sentinel watching them (quorum 1, down after
    1 s)."""
    p_port, r_port, s_port = free_port(), free_port(), free_port()
    procs: dict[str, subprocess.Popen[bytes]] = {}
    for name, port, extra in (
        ("primary", p_port, []),
        ("replica", r_port, ["--replicaof", "127.0.0.1", str(p_port)]),
    ):
        d = tmp_path / name
        d.mkdir()
        procs[name] = subprocess.Popen(redis_argv(port, d) + extra, stdout=subprocess.DEVNULL)
    conf = tmp_path / "sentinel.conf"
    conf.write_text(
        f"port {s_port}\nbind 127.0.0.1\ndir {tmp_path}\n"
        f"sentinel monitor {MASTER} 127.0.0.1 {p_port} 1\n"
        f"sentinel down-after-milliseconds {MASTER} 1000\n"
        f"sentinel failover-timeout {MASTER} 10000\n"
        f"sentinel parallel-syncs {MASTER} 1\n"
    )
    procs["sentinel"] = subprocess.Popen(["redis-sentinel", str(conf)], stdout=subprocess.DEVNULL)
    try:
        s = redis.Redis(port=s_port, socket_timeout=5)
        until(
            lambda: _quiet(lambda: master(s)["num-slaves"] >= 1),
            30,
            "the Sentinel sees the replica",
        )
        yield procs, p_port, r_port, s_port
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()


def master(sentinel: redis.Redis) -> Any:
    """What the Sentinel says of the primary it watches (its port, its replicas)."""
    return sentinel.sentinel_master(MASTER)


def _quiet(check: object) -> object:
    try:
        return check()  # type: ignore[operator]
    except redis.RedisError:
        return False


def test_a_failover_mid_batch_loses_nothing_and_runs_nothing_twice(
    sentinel_set: tuple[dict[str, subprocess.Popen[bytes]], int, int, int], tmp_path: Path
) -> None:
    procs, p_port, r_port, s_port = sentinel_set
    url = f"sentinel://127.0.0.1:{s_port}/{MASTER}/0"
    stack = start_stack(
        tmp_path / "stack", workers=2, faults="gates", env={"NARRATE_REDIS_URL": url}
    )
    try:
        gate = stack.gate("FAILOVER")
        with stack.client() as c:
            held = "[段 1 · 2 秒] 切换 SEGHOLDFAILOVER 第一段。\n\n[段 2 · 2 秒] 第二段。"
            ids = [submit(c, held).json()["id"]]
            ids += [
                submit(c, f"[段 1 · 1 秒] 第{i}个。\n\n[段 2 · 1 秒] 完。").json()["id"]
                for i in range(JOBS - 1)
            ]
            gate.reached()
            primary, replica = redis.Redis(port=p_port), redis.Redis(port=r_port)
            until(lambda: replica_in_sync(primary, replica), 30, "the replica caught up")
            procs["primary"].kill()
            procs["primary"].wait()
            s = redis.Redis(port=s_port, socket_timeout=5)
            until(
                lambda: int(master(s)["port"]) == r_port,
                60,
                "the Sentinel promoted the replica",
            )
            gate.open()
            jobs = [wait_for(c, j, timeout=120) for j in ids]
        assert [j["status"] for j in jobs] == ["succeeded"] * JOBS, [j["error"] for j in jobs]
        r = stack.redis()  # through the Sentinel: the promoted replica
        assert r.connection_pool.get_master_address()[1] == r_port
        for j in ids:  # each job finalized once; no step left anywhere
            assert r.hget(f"narrate:job:{j}:deliveries", "finalize") == "1"
        assert r.llen("narrate") == 0 and r.hlen("unacked") == 0
    finally:
        stack.stop()

"""What a hostile probe and a failing Redis found (issue 15): the event loop never blocks,
a hung Redis gives a quick 503 that means "never ran", Idempotency-Key holds across API
processes, and malformed bodies are 4xx with a message."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from devtools.stack import until
from service.ports import NewJob
from tests.support.data import ROOT
from tests.support.jobs import make_job
from tests.support.stack import Stack, free_port, start_stack, submit

SCRIPT = "[段 1 · 3 秒] 评分员对通过的轨迹排序。"


def redis_barrier(r: Any) -> None:
    """Wait for Redis to have run what its clients had sent before now, by round trips, not
    by time: the buffered commands were readable before these pings were sent, and Redis runs
    what one loop iteration read before it reads again, so by the last answer they have run."""
    for _ in range(3):
        r.ping()


TIMEOUT = 5  # the idle stack's Redis call timeout: a wait on a hung Redis is this long


@pytest.fixture(scope="module")
def idle_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Redis (with a 5 s call timeout) and the API, no worker: jobs stay queued. The API is
    the fault stack's: a submit whose script names a gate (APIHOLD) waits there after its
    body is read (as a slow parse or ffprobe would) until the test opens it; any other
    request is the service's own."""
    s = start_stack(
        tmp_path_factory.mktemp("idle"), workers=0, faults="gates", redis_timeout=TIMEOUT
    )
    yield s
    s.stop()


@pytest.fixture
def idle(idle_stack: Stack) -> Iterator[Stack]:
    """The module's idle stack, its Redis emptied for each test (the tests count what is
    stored) and running again after (a test stops it with SIGSTOP); a second API a test
    started is stopped. The tenants' keys live in that Redis too: they are made again."""
    idle_stack.redis().flushall()
    keys = idle_stack.keystore()
    idle_stack.keys = {t: keys.create(t) for t in ("alpha", "beta")}
    yield idle_stack
    idle_stack.procs["redis"].send_signal(signal.SIGCONT)
    if api2 := idle_stack.procs.pop("api2", None):
        api2.terminate()
        api2.wait(timeout=30)


def healthz_times(url: str, until: threading.Event) -> list[float]:
    times = []
    while not until.is_set():
        t = time.monotonic()
        assert httpx.get(f"{url}/healthz", timeout=30).status_code == 200
        times.append(time.monotonic() - t)
        time.sleep(0.05)
    return times


def test_healthz_answers_while_submits_are_held(idle: Stack) -> None:
    """Four submits held in their plan step (each at its own gate): /healthz answers all the
    while. A loop that waited on one would never answer, and the gates open only after."""
    s = idle
    gates = [s.gate(f"S{i}") for i in range(4)]
    with ThreadPoolExecutor(4) as pool, s.client() as c:
        posts = [
            pool.submit(submit, c, SCRIPT.replace("排序", f"排序{i} APIHOLDS{i}")) for i in range(4)
        ]
        for gate in gates:
            gate.reached()
        for _ in range(5):
            assert httpx.get(f"{s.url}/healthz", timeout=30).status_code == 200
        assert not any(p.done() for p in posts)  # every submit is still held
        for gate in gates:
            gate.open()
        statuses = [p.result().status_code for p in posts]
    assert statuses == [202] * 4


def jobs_in_redis(s: Stack) -> list[str]:
    return [k for k in s.redis().scan_iter("narrate:job:*") if k.count(":") == 2]


def tasks_waiting(r: Any) -> int:
    """Task messages waiting: in the tenants' lanes (fair share) or the queue."""
    return int(r.llen("narrate")) + sum(int(r.llen(k)) for k in r.scan_iter("narrate:lane:*"))


def test_hung_redis_gives_quick_503s_that_never_run_and_retries_do_not_duplicate(
    idle: Stack,
) -> None:
    s = idle
    redis_proc = s.procs["redis"]
    redis_proc.send_signal(signal.SIGSTOP)  # hung, not dead: connections open, no replies
    done = threading.Event()
    try:
        with ThreadPoolExecutor(8) as pool, s.client() as c:
            probe = pool.submit(healthz_times, s.url, done)
            t = time.monotonic()
            posts = [
                pool.submit(
                    submit,
                    c,
                    SCRIPT.replace("排序", f"排序{i}"),
                    None,
                    None,
                    **{"Idempotency-Key": f"k{i}"},
                )
                for i in range(5)
            ]
            answers = [p.result() for p in posts]
            took = time.monotonic() - t
            done.set()
            times = probe.result()
    finally:
        redis_proc.send_signal(signal.SIGCONT)
    assert [a.status_code for a in answers] == [503] * 5, [a.text for a in answers]
    assert all(a.headers["Retry-After"] for a in answers)
    assert took < 4 * TIMEOUT, took  # one timeout for all, not five in series
    assert max(times) < TIMEOUT - 1, times  # /healthz never waited on Redis
    r = s.redis()
    redis_barrier(r)
    assert jobs_in_redis(s) == [] and tasks_waiting(r) == 0  # no ghost record, no task
    assert not list(r.scan_iter("narrate:idem:*"))
    with s.client() as c:
        first = [
            submit(
                c, SCRIPT.replace("排序", f"排序{i}"), None, None, **{"Idempotency-Key": f"k{i}"}
            )
            for i in range(5)
        ]
        again = [
            submit(
                c, SCRIPT.replace("排序", f"排序{i}"), None, None, **{"Idempotency-Key": f"k{i}"}
            )
            for i in range(5)
        ]
    assert [a.status_code for a in first + again] == [202] * 10
    assert [a.json()["id"] for a in first] == [a.json()["id"] for a in again]
    assert len(jobs_in_redis(s)) == 5 and tasks_waiting(r) == 5  # one segment task each


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def test_idempotency_key_is_atomic_across_two_api_processes(idle: Stack) -> None:
    s = idle
    port2 = free_port()
    log = (s.data_dir / "api2.log").open("wb")
    s.procs["api2"] = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "service.api.main:app", "--port", str(port2), "--log-level", "warning"],
        env=s.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    urls = [s.url, f"http://127.0.0.1:{port2}"]
    until(lambda: healthy(urls[1]), 180, "the second API")  # a loaded host starts it slowly
    auth = {"Authorization": f"Bearer {s.keys['alpha']}"}
    clients = [httpx.Client(base_url=u, headers=auth, timeout=60) for u in urls]
    try:
        with ThreadPoolExecutor(20) as pool:
            for trial in range(15):
                key = {"Idempotency-Key": f"race-{trial}"}
                answers = list(
                    pool.map(
                        lambda i, k=key: submit(clients[i % 2], SCRIPT, None, None, **k), range(20)
                    )
                )
                assert {a.status_code for a in answers} == {202}, [a.text for a in answers]
                assert len({a.json()["id"] for a in answers}) == 1, trial
    finally:
        for c in clients:
            c.close()
    assert len(jobs_in_redis(s)) == 15  # one job per key, and nothing else


MALFORMED_MULTIPART = {
    "no closing boundary": b'--xx\r\nContent-Disposition: form-data; name="script"\r\n\r\nabc',
    "header without a colon": b"--xx\r\nContent-Disposition form-data\r\n\r\nabc\r\n--xx--\r\n",
    "bad byte in a header name": b"--xx\r\nCont\x00ent: x\r\n\r\nabc\r\n--xx--\r\n",
    "junk after the boundary": b"--xxJUNK\r\n\r\nabc\r\n--xx--\r\n",
    "LF without CR after headers": b'--xx\r\nContent-Disposition: form-data; name="script"\n\nab',
    "no boundary at all": b"just some bytes",
}


def hostile_bodies() -> list[tuple[str, bytes, str]]:
    """(what, body, content type): every one must get a 4xx with a message."""
    deep = b'{"segments": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    surrogate = b'{"title": "\\ud800", "segments": [{"text": "a", "seconds": 3}]}'
    surrogate_text = b'{"segments": [{"text": "a\\udfff", "seconds": 3}]}'
    options_deep = b'{"engine": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    out = [
        ("deeply nested JSON", deep, "application/json"),
        ("a lone surrogate in the title", surrogate, "application/json"),
        ("a lone surrogate in segment text", surrogate_text, "application/json"),
    ]
    for what, body in MALFORMED_MULTIPART.items():
        out.append((what, body, "multipart/form-data; boundary=xx"))
    out.append(
        (
            "boundary over 70 characters",
            b"--" + b"x" * 100,
            "multipart/form-data; boundary=" + "x" * 100,
        )
    )
    form = (
        b"--xx\r\nContent-Disposition: form-data; name=\"script\"; filename=\"s.json\"\r\n\r\n"
        + deep + b"\r\n--xx\r\nContent-Disposition: form-data; name=\"options\"\r\n\r\n"
        + options_deep + b"\r\n--xx--\r\n"
    )  # fmt: skip
    out.append(("deep JSON in multipart fields", form, "multipart/form-data; boundary=xx"))
    form = (
        b"--xx\r\nContent-Disposition: form-data; name=\"script\"; filename=\"s.json\"\r\n\r\n"
        + surrogate + b"\r\n--xx--\r\n"
    )  # fmt: skip
    out.append(
        ("a lone surrogate in a multipart JSON script", form, "multipart/form-data; boundary=xx")
    )
    return out


def test_malformed_bodies_are_4xx_with_a_message(idle: Stack) -> None:
    with idle.client() as c:
        for what, body, ctype in hostile_bodies():
            r = c.post("/v1/jobs", content=body, headers={"Content-Type": ctype})
            assert 400 <= r.status_code < 500, (what, r.status_code, r.text)
            detail = r.json()["detail"]  # 422: [{code, msg, loc}], else a sentence
            said = [p["msg"] for p in detail] if r.status_code == 422 else [detail]
            assert said and all(isinstance(m, str) and m for m in said), what
        assert c.get("/v1/jobs").json()["jobs"] == []
    assert not [p for p in (idle.data_dir / "artifacts").rglob("*") if p.is_file()]


def test_stored_task_messages_are_what_celery_itself_would_queue(idle: Stack) -> None:
    """The create script pushes messages built by task_message(); on a Celery or kombu
    upgrade they must still be what send_task puts on the queue (ids and tags aside)."""
    import base64
    import json

    from service.adapters.redis.queue import make_celery, task_message
    from service.config import Settings
    from service.ports import QUEUE

    app = make_celery(Settings(redis_url=idle.env["NARRATE_REDIS_URL"]))
    r = idle.redis()
    app.send_task("narrate.segment", args=["abc", 3])
    real = json.loads(r.lpop(QUEUE))
    mine = json.loads(task_message(app, "narrate.segment", ["abc", 3]))
    ids = {"id", "root_id", "correlation_id", "delivery_tag", "reply_to", "origin"}

    def shape(m: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in m.items() if k not in ("headers", "properties", "body")}
        for part in ("headers", "properties"):
            out[part] = {k: v for k, v in m[part].items() if k not in ids}
        out["body"] = json.loads(base64.b64decode(m["body"]))
        return out

    assert shape(mine) == shape(real)
    assert mine["headers"]["id"] == mine["properties"]["correlation_id"]


def test_a_create_that_reaches_redis_late_writes_nothing(idle: Stack) -> None:
    """The hard case of a hung Redis: the create script was sent, the API gave up waiting
    (503), and Redis runs the buffered script when it resumes. It must change nothing."""
    from service.adapters.redis.jobstore import JobStore
    from service.domain.errors import StoreUnavailable
    from service.domain.job import Job

    store = JobStore.from_url(idle.env["NARRATE_REDIS_URL"], timeout=1)

    def job(n: int) -> Job:
        return make_job(f"j{n}", "alpha", time.time(), n=1)

    store.create(NewJob(job(0), ("k0", "h"), ["m0"], "narrate", budget=0.5))  # the script is loaded
    before = store.r.time()
    store.r.time = lambda: before  # TIME answered just before Redis hung
    idle.procs["redis"].send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(StoreUnavailable):
            store.create(NewJob(job(1), ("k1", "h"), ["m1"], "narrate", budget=0.5))
    finally:
        idle.procs["redis"].send_signal(signal.SIGCONT)
    r = idle.redis()
    redis_barrier(r)  # the buffered EVALSHA has run by now
    assert r.exists("narrate:job:j0") and not r.exists("narrate:job:j1")
    assert r.lrange("narrate", 0, -1) == ["m0"] and not r.exists("narrate:idem:alpha:k1")
    assert not r.sismember("narrate:active", "j1")

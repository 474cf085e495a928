"""Bursts, oversize bodies, path tricks, keys: against a real stack (the
session's; the burst's tenants are its own)."""

from __future__ import annotations

import http.client
import itertools
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from service.jobs.keys import digest
from tests.integration.stack.shared import MAX_VIDEO_BYTES
from tests.support.stack import Stack, free_port, start_stack, submit, wait_for


def test_burst_of_50_jobs_from_5_tenants_all_terminal(stack: Stack) -> None:
    keys = stack.keystore()
    tenants = {f"t{i}": keys.create(f"t{i}") for i in range(5)}
    submitted: dict[str, list[str]] = {t: [] for t in tenants}
    canceled: dict[str, int] = dict.fromkeys(tenants, 0)
    clients = {
        t: httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {k}"}, timeout=60)
        for t, k in tenants.items()
    }
    for n, t in zip(range(50), itertools.cycle(tenants), strict=False):
        r = submit(clients[t], f"[段 1 · 2 秒] 第{n}号任务。")
        assert r.status_code == 202, r.text
        submitted[t].append(r.json()["id"])
        if n % 10 == 9:  # a few are canceled while queued
            clients[t].delete(f"/v1/jobs/{r.json()['id']}")
            canceled[t] += 1
    deadline = time.monotonic() + 180
    for t, c in clients.items():
        while True:
            jobs = c.get("/v1/jobs", params={"limit": 200}).json()["jobs"]
            if all(j["status"] in ("succeeded", "failed", "canceled") for j in jobs):
                break
            assert time.monotonic() < deadline, [j["status"] for j in jobs]
            time.sleep(0.5)
        counts = {
            s: sum(j["status"] == s for j in jobs) for s in ("succeeded", "failed", "canceled")
        }
        assert sorted(j["id"] for j in jobs) == sorted(
            submitted[t]
        )  # each tenant sees its own, all
        assert len(submitted[t]) == sum(counts.values())
        assert counts["canceled"] == canceled[t]
        c.close()


def raw_request(
    stack: Stack, head: str, body_chunks: Iterator[bytes], limit: int
) -> tuple[int, int]:
    """Send a request chunk by chunk, stop as soon as the server answers; (status, bytes sent)."""
    sock = socket.create_connection(("127.0.0.1", stack.api_port), timeout=10)
    sock.sendall(head.encode())
    sent = 0
    sock.setblocking(False)
    try:
        for chunk in body_chunks:
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break  # the answer came before the body ended
            except BlockingIOError:
                pass
            sock.setblocking(True)
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            sock.setblocking(False)
            sent += len(chunk)
            if sent > limit * 16:
                break
        sock.setblocking(True)
        data = sock.recv(4096)
    finally:
        sock.close()
    return int(data.split(b" ")[1]), sent


def test_oversize_bodies_get_an_early_413(stack: Stack) -> None:
    limit = (1 << 20) + MAX_VIDEO_BYTES + (1 << 20)  # script + video + the form's own
    key = stack.keys["alpha"]
    # With Content-Length: refused before a byte of the body is read.
    with stack.client() as c:
        r = c.post(
            "/v1/jobs", content=b"x" * (limit + 1), headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 413
    # Chunked: refused once the bytes received pass the limit, not after the whole body.
    head = (
        f"POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:{stack.api_port}\r\n"
        "Transfer-Encoding: chunked\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: multipart/form-data; boundary=b\r\n\r\n"
    )
    chunks = itertools.chain(
        [b'--b\r\nContent-Disposition: form-data; name="video"; filename="v.mp4"\r\n\r\n'],
        itertools.repeat(b"\0" * 65536),
    )
    status, sent = raw_request(stack, head, chunks, limit)
    # The body never ends: an answer at all means the server refused it part-way. (What the
    # client pushed also sits in socket buffers, so "sent" runs ahead of what was read.)
    assert status == 413 and sent < limit * 16, sent
    # Too many form fields.
    with stack.client() as c:
        fields = {f"f{i}": "x" for i in range(20)}
        r = c.post(
            "/v1/jobs",
            data=fields,
            files={
                "script": (
                    "s.md",
                    b"[\xe6\xae\xb5 1 \xc2\xb7 2 \xe7\xa7\x92] \xe5\xa5\xbd",
                    "text/plain",
                )
            },
        )
        assert r.status_code == 413 and "unexpected or repeated field" in r.json()["detail"]


def test_symlinked_artifact_is_not_served(stack: Stack) -> None:
    with stack.client() as c:
        job = wait_for(c, submit(c, "[段 1 · 2 秒] 符号链接。").json()["id"])
        path = stack.data_dir / "artifacts" / "alpha" / job["id"] / "artifacts" / "subtitles.srt"
        path.unlink()
        path.symlink_to("/etc/passwd")
        assert c.get(job["links"]["artifacts"]["subtitles.srt"]).status_code == 404
        assert c.get(job["links"]["artifacts"]["narration.wav"]).status_code == 200


def test_keys_are_stored_hashed(stack: Stack) -> None:
    r = stack.redis()
    stored = json.dumps(r.hgetall("narrate:keys"))
    records = [json.loads(v) for v in r.hgetall("narrate:keys").values()]
    for key in stack.keys.values():
        assert key not in stored
        assert digest(key) in {v["digest"] for v in records}
    assert {v["tenant"] for v in records} >= {"alpha", "beta"}
    assert (
        httpx.get(
            f"{stack.url}/v1/voices",
            headers={"Authorization": "Bearer " + stack.keys["alpha"][:-1]},
        ).status_code
        == 401
    )
    assert (
        httpx.get(
            f"{stack.url}/v1/jobs", headers={"Authorization": "Bearer " + stack.keys["alpha"][:-1]}
        ).status_code
        == 401
    )
    assert (
        httpx.get(
            f"{stack.url}/v1/jobs", headers={"Authorization": "Basic " + stack.keys["alpha"]}
        ).status_code
        == 401
    )


def raw(stack: Stack, method: str, path: str, **headers: str) -> tuple[int, str]:
    """A request with exactly these headers (httpx would set Host itself)."""
    conn = http.client.HTTPConnection("127.0.0.1", stack.api_port, timeout=10)
    conn.putrequest(method, path, skip_host="Host" in headers)
    for name, value in headers.items():
        conn.putheader(name, value)
    conn.endheaders()
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    return response.status, body


def test_other_host_names_and_origins_are_refused(stack: Stack) -> None:
    auth = f"Bearer {stack.keys['alpha']}"
    with stack.client() as c:
        job = wait_for(c, submit(c, "[段 1 · 2 秒] 主机名。").json()["id"])
    for host in (f"evil.example:{stack.api_port}", "127.0.0.1.nip.io", "localhost.evil"):
        status, body = raw(stack, "GET", f"/v1/jobs/{job['id']}", Host=host, Authorization=auth)
        assert status == 421 and "NARRATE_ALLOWED_HOSTS" in body and job["id"] not in body
    for host in (f"localhost:{stack.api_port}", "[::1]", "127.0.0.1"):
        assert raw(stack, "GET", "/v1/voices", Host=host, Authorization=auth)[0] == 200
    with stack.client() as c:
        # With keys on, a proxy may forward: keys are what guards the API then.
        assert c.get("/v1/voices", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 200


def test_every_response_carries_the_security_headers(stack: Stack) -> None:
    for path in ("/", "/studio/main.js", "/v1/voices", "/healthz", "/docs", "/nope"):
        h = httpx.get(stack.url + path, headers={"Authorization": f"Bearer {stack.keys['alpha']}"})
        csp = h.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "'unsafe-inline'" not in csp or path == "/docs"
        assert h.headers["x-content-type-options"] == "nosniff"
        assert h.headers["x-frame-options"] == "DENY"
        assert h.headers["referrer-policy"] == "no-referrer"
    page = httpx.get(stack.url + "/docs").text
    assert "cdn" not in page and "/docs/assets/swagger-ui-bundle.js" in page


def narrate(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *args],
        env=stack.env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_keys_list_and_revoke(stack: Stack) -> None:
    key = narrate(stack, "keys", "create", "gamma").stdout.strip()
    other = narrate(stack, "keys", "create", "gamma").stdout.strip()
    listed = narrate(stack, "keys", "list")
    assert listed.returncode == 0 and key not in listed.stdout and other not in listed.stdout
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert {"alpha", "beta"} <= {r[1] for r in rows}
    key_id = digest(key)[:12]  # the id: the start of the stored digest, never the key
    assert sorted(r[0] for r in rows if r[1] == "gamma") == sorted([key_id, digest(other)[:12]])

    def status(k: str) -> int:
        return httpx.get(
            f"{stack.url}/v1/jobs", headers={"Authorization": f"Bearer {k}"}
        ).status_code

    assert status(key) == status(other) == 200  # the API has read the file now
    revoked = narrate(stack, "keys", "revoke", key_id)
    assert revoked.returncode == 0 and key_id in revoked.stdout
    assert (status(key), status(other)) == (401, 200)  # at once: no restart
    assert narrate(stack, "keys", "revoke", "gamma").returncode == 0
    assert status(other) == 401
    unknown = narrate(stack, "keys", "revoke", "gamma")
    assert unknown.returncode == 2 and "no key" in unknown.stderr and "keys list" in unknown.stderr
    assert "gamma" not in narrate(stack, "keys", "list").stdout


def test_narrate_api_runs_the_api_alone(stack: Stack) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "api", "--port", str(port)],
        env=stack.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180  # a hang, not a slow start (30 s failed under load)
        while True:
            try:
                ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.2)
        assert ready.json()["checks"]["workers"] == 2  # the stack's, on its Redis
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert children == []  # no Redis, worker or reconciler of its own
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0


def test_a_keyless_server_refuses_other_origins_and_proxies(tmp_path: Path) -> None:
    """Without keys, another site's page could write here, and a proxy on this machine
    would serve everyone as if local."""
    s = start_stack(tmp_path, workers=0, require_keys="false")
    try:
        spec = json.dumps({"language": "en", "segments": [{"text": "Hi.", "seconds": 2}]})
        job = httpx.post(f"{s.url}/v1/jobs", content=spec).json()["id"]
        for headers in (
            {"Origin": f"http://localhost:{s.api_port + 1}"},
            {"Origin": f"http://127.0.0.1:{s.api_port}.evil"},
            {"Origin": "null"},
            {"Sec-Fetch-Site": "cross-site"},
        ):
            r = httpx.post(f"{s.url}/v1/jobs", content=spec, headers=headers)
            assert r.status_code == 403 and "refused" in r.json()["detail"], r.text
            assert httpx.delete(f"{s.url}/v1/jobs/{job}", headers=headers).status_code == 403
        assert [j["id"] for j in httpx.get(f"{s.url}/v1/jobs").json()["jobs"]] == [job]
        assert httpx.get(f"{s.url}/v1/jobs/{job}").json()["status"] == "queued"
        same = httpx.post(f"{s.url}/v1/jobs", content=spec, headers={"Origin": s.url})
        assert same.status_code == 202  # the studio page's own requests
        for header, value in (
            ("X-Forwarded-For", "203.0.113.9"),
            ("Forwarded", "for=203.0.113.9"),
            ("X-Real-IP", "203.0.113.9"),
            ("Via", "1.1 proxy"),
        ):
            r = httpx.get(f"{s.url}/v1/jobs", headers={header: value})
            assert r.status_code == 403 and "NARRATE_REQUIRE_KEYS=1" in r.json()["detail"]
    finally:
        s.stop()

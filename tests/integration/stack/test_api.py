"""End to end over HTTP: uvicorn, 2 Celery worker processes and a Redis (the session's shared
stack: a test that lists jobs lists its own tenant's or its own ids)."""

from __future__ import annotations

import time
from pathlib import Path

from service import audio as dsp
from service.ports import NewJob
from tests.integration.stack.shared import MAX_VIDEO_BYTES, own_tenant
from tests.support.data import SHORT_SCRIPT
from tests.support.helpers import check_render, eventually, ffprobe, stream_md5
from tests.support.jobs import make_job
from tests.support.stack import Stack, submit, wait_for

ARTIFACTS = [
    "narration.wav",
    "subtitles.srt",
    "subtitles.vtt",
    "subtitles.ass",
    "video.mp4",
    "manifest.json",
]
SIX = "\n\n".join(f"[段 {i} · 3 秒] 第{i}段:代码测试通过,优势重新分配。" for i in range(1, 7))


def test_submit_follow_and_download(stack: Stack, short_video: Path, tmp_path: Path) -> None:
    with stack.client() as c:
        r = submit(c, SHORT_SCRIPT, short_video)
        assert r.status_code == 202, r.text
        created = r.json()
        assert created["status"] == "queued" and created["links"]["self"].endswith(created["id"])
        seen = set()
        job = c.get(f"/v1/jobs/{created['id']}").json()
        while job["status"] not in ("succeeded", "failed"):
            seen.add((job["status"], job["progress"]))
            time.sleep(0.1)
            job = c.get(f"/v1/jobs/{created['id']}").json()
        assert job["status"] == "succeeded", job["error"]
        assert job["progress"] == 1.0 and sorted(job["artifacts"]) == sorted(ARTIFACTS)
        assert job["engines"] == ["espeak", "espeak"]
        assert {"synthesize", "fit", "subtitles", "loudness", "mux"} <= set(job["timings"])
        assert all(0 <= p <= 1 for _, p in seen)
        out = tmp_path / "dl"
        out.mkdir()
        for name, url in job["links"]["artifacts"].items():
            resp = c.get(url)
            assert resp.status_code == 200
            assert resp.headers["etag"] and name in resp.headers["content-disposition"]
            (out / name).write_bytes(resp.content)
        assert c.get(job["links"]["artifacts"]["video.mp4"]).headers["content-type"] == "video/mp4"
        ranged = c.get(job["links"]["artifacts"]["video.mp4"], headers={"Range": "bytes=100-199"})
        assert (
            ranged.status_code == 206
            and ranged.content == (out / "video.mp4").read_bytes()[100:200]
        )
    check_render(out, [4.0, 5.5], (4.0, 9.5))
    kinds = {s["codec_type"]: s["codec_name"] for s in ffprobe(out / "video.mp4")["streams"]}
    assert kinds == {"video": "h264", "audio": "aac", "subtitle": "mov_text"}
    assert stream_md5(out / "video.mp4") == stream_md5(short_video)


def test_segments_run_on_more_than_one_worker(stack: Stack) -> None:
    with stack.client() as c:
        r = submit(c, SIX)
        job = wait_for(c, r.json()["id"])
    assert job["status"] == "succeeded", job["error"]
    workers = {s["worker"] for s in job["segments"]}
    assert len(workers) >= 2, workers
    assert all(w.startswith("worker") for w in workers)


def test_json_spec_and_listing(stack: Stack) -> None:
    spec = {
        "title": "json job",
        "language": "en",
        "segments": [{"text": "Hello there.", "seconds": 2}],
        "options": {"engine": "espeak"},
    }
    with own_tenant(stack, "listing") as c:
        r = c.post("/v1/jobs", json=spec)
        assert r.status_code == 202, r.text
        job = wait_for(c, r.json()["id"])
        assert job["status"] == "succeeded" and job["title"] == "json job"
        wait_for(c, c.post("/v1/jobs", json=spec | {"title": "older"}).json()["id"])
        job = wait_for(c, c.post("/v1/jobs", json=spec).json()["id"])
        assert "video.mp4" not in job["artifacts"]
        listed = c.get("/v1/jobs", params={"limit": 100}).json()["jobs"]
        assert listed[0]["id"] == job["id"]  # newest first
        assert all(
            j["status"] == "succeeded"
            for j in c.get("/v1/jobs", params={"status": "succeeded"}).json()["jobs"]
        )
        page = c.get("/v1/jobs", params={"limit": 1}).json()
        assert len(page["jobs"]) == 1 and page["next_cursor"]
        nxt = c.get("/v1/jobs", params={"limit": 1, "cursor": page["next_cursor"]}).json()
        assert nxt["jobs"][0]["id"] != page["jobs"][0]["id"]


def test_idempotency_key(stack: Stack) -> None:
    with stack.client() as c:
        a = submit(c, SHORT_SCRIPT, None, None, **{"Idempotency-Key": "batch-7"})
        b = submit(c, SHORT_SCRIPT, None, None, **{"Idempotency-Key": "batch-7"})
        assert a.status_code == b.status_code == 202
        assert a.json()["id"] == b.json()["id"]
        other = submit(
            c,
            SHORT_SCRIPT.replace("测试短片", "另一部"),
            None,
            None,
            **{"Idempotency-Key": "batch-7"},
        )
        assert other.status_code == 409
        assert (
            len(
                [
                    j
                    for j in c.get("/v1/jobs", params={"limit": 200}).json()["jobs"]
                    if j["id"] == a.json()["id"]
                ]
            )
            == 1
        )
        wait_for(c, a.json()["id"])


def test_cancel_while_running(stack: Stack) -> None:
    many = "\n\n".join(
        f"[段 {i} · 6 秒] 第{i}段:评分员对通过的轨迹排序,低排名降权,按比例重新分配优势。"
        for i in range(1, 21)
    )
    with stack.client() as c:
        job_id = submit(c, many).json()["id"]
        wait_for(c, job_id, until=("running", "succeeded"))
        r = c.delete(f"/v1/jobs/{job_id}")
        assert r.json()["result"] == "canceled"
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "canceled" and job["artifacts"] == []
        assert c.get(f"/v1/jobs/{job_id}/artifacts/narration.wav").status_code == 404
        # The segments running then stop at their next step and leave nothing, no empty dir.
        where = stack.data_dir / "artifacts" / "alpha" / job_id
        eventually(lambda: not where.exists(), "the canceled job's files are gone")
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert sum(s["state"] == "done" for s in job["segments"]) < 20
        # A finished job is deleted with its artifacts.
        assert c.delete(f"/v1/jobs/{job_id}").json()["result"] == "deleted"
        assert c.get(f"/v1/jobs/{job_id}").status_code == 404


def test_artifact_conditional_head_and_unparsable_range(stack: Stack) -> None:
    with stack.client() as c:
        job = wait_for(c, submit(c, SHORT_SCRIPT).json()["id"])
        url = job["links"]["artifacts"]["subtitles.srt"]
        full = c.get(url)
        etag = full.headers["etag"]
        assert c.get(url, headers={"If-None-Match": etag}).status_code == 304
        assert c.get(url, headers={"If-None-Match": f'"other", {etag}'}).status_code == 304
        assert c.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
        head = c.head(url)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["etag"] == etag
        assert head.headers["content-length"] == str(len(full.content))
        for bad in ("bytes=abc", "lines=1-2", "bytes=5-2", "bytes"):
            r = c.get(url, headers={"Range": bad})  # RFC 9110: ignore it, send it all
            assert r.status_code == 200 and r.content == full.content, bad
        ranged = c.get(url, headers={"Range": "bytes=0-9"})
        assert ranged.status_code == 206 and ranged.content == full.content[:10]


def test_tenants_cannot_see_each_other(stack: Stack) -> None:
    with stack.client("alpha") as a, stack.client("beta") as b:
        job = wait_for(a, submit(a, SHORT_SCRIPT).json()["id"])
        jid = job["id"]
        assert b.get(f"/v1/jobs/{jid}").status_code == 404
        assert jid not in [j["id"] for j in b.get("/v1/jobs", params={"limit": 200}).json()["jobs"]]
        assert b.get(f"/v1/jobs/{jid}/artifacts/narration.wav").status_code == 404
        assert b.delete(f"/v1/jobs/{jid}").status_code == 404
        assert a.get(f"/v1/jobs/{jid}").json()["status"] == "succeeded"
    import httpx

    assert httpx.get(f"{stack.url}/v1/jobs").status_code == 401
    assert (
        httpx.get(f"{stack.url}/v1/jobs", headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )


def test_limits_and_bad_input(stack: Stack, tmp_path: Path) -> None:
    jobs_dir = stack.data_dir / "artifacts" / "alpha"
    before = {p.name for p in jobs_dir.iterdir()} if jobs_dir.exists() else set()
    with stack.client() as c:
        big = tmp_path / "big.mp4"
        big.write_bytes(b"\0" * (MAX_VIDEO_BYTES + 100_000))
        r = submit(c, SHORT_SCRIPT, big)
        assert r.status_code == 413 and "video" in r.json()["detail"]
        r = submit(c, "[段 1 · 3 秒] " + "字" * (1 << 20))
        assert r.status_code == 413
        r = submit(c, "[段 1 · 3 秒] 好\n[段 2 · 0 秒] 坏")
        assert r.status_code == 422 and "segment 2 seconds" in r.json()["detail"][0]["msg"]
        r = submit(c, "", None)
        assert r.status_code == 422 and "empty" in r.json()["detail"][0]["msg"]
        r = submit(c, SHORT_SCRIPT, None, {"voice": "zh-CN-YunxiNeurl"})
        assert r.status_code == 422 and "zh-CN-YunxiNeural" in r.json()["detail"][0]["msg"]
        fake = tmp_path / "fake.mp4"
        fake.write_text("#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n")
        r = submit(c, SHORT_SCRIPT, fake)
        assert r.status_code == 422 and "not a readable video" in r.json()["detail"][0]["msg"]
        assert str(stack.data_dir) not in r.text and "/artifacts/" not in r.text, r.text
        job = wait_for(c, submit(c, SHORT_SCRIPT).json()["id"])
        for name in (
            "nope.txt",
            "..",
            "../../keys.json",
            "..%2F..%2Fkeys.json",
            "%2e%2e%2fkeys.json",
            "work",
            "%2Fetc%2Fpasswd",
            "segments/../../keys.json",  # the one folder an artifact name may have
            "segments/..%2F..%2Fkeys.json",
            "segments/01.wav",  # none published without exports
        ):
            assert raw_get(stack, f"/v1/jobs/{job['id']}/artifacts/{name}") == 404, name
        assert c.get(f"/v1/jobs/{job['id']}/artifacts/video.mp4").status_code == 404  # none made
    # Nothing of the refused jobs was kept (other tests' jobs on the shared stack aside).
    left = {p.name for p in jobs_dir.iterdir()} - before
    with stack.client() as c:
        known = {j["id"] for j in c.get("/v1/jobs", params={"limit": 200}).json()["jobs"]}
    assert left <= known


def raw_get(stack: Stack, path: str) -> int:
    """GET a path exactly as written: httpx would resolve the dot segments itself."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", stack.api_port, timeout=10)
    conn.request("GET", path, headers={"Authorization": f"Bearer {stack.keys['alpha']}"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_health_voices_metrics_docs(stack: Stack) -> None:
    import httpx

    assert httpx.get(f"{stack.url}/healthz").json()["status"] == "ok"
    ready = httpx.get(f"{stack.url}/readyz").json()
    seen = ready["checks"].pop("dispatcher_seen")  # a worker's thread holds the lease
    assert ready["checks"] == {"redis": True, "workers": 2, "dispatcher": True, "storage": True}
    assert 0 <= seen <= 3  # renewed every third of NARRATE_DISPATCH_LEASE
    with stack.client() as c:
        voices = c.get("/v1/voices").json()
        assert {"zh-CN-YunxiNeural", "cmn-latn-pinyin", "zh-baker"} <= {v["id"] for v in voices}
        assert len(voices) > 300  # the whole edge catalog
        taiwan = c.get("/v1/voices", params={"language": "zh-TW"}).json()
        assert {v["locale"] for v in taiwan} == {"zh-TW"} and len(taiwan) == 3
        metrics = c.get("/metrics").text
        assert 'narrate_jobs{state="succeeded"}' in metrics and "narrate_queue_depth" in metrics
        assert (
            'narrate_stage_seconds_count{stage="mux"}' in metrics or 'stage="synthesize"' in metrics
        )
        assert 'narrate_tts_calls_total{engine="espeak"}' in metrics
        assert c.get("/docs").status_code == 200
        assert "/v1/jobs" in c.get("/openapi.json").json()["paths"]


def test_wav_is_mono_16_bit(stack: Stack, tmp_path: Path) -> None:
    with stack.client() as c:
        job = wait_for(c, submit(c, SHORT_SCRIPT).json()["id"])
        path = tmp_path / "n.wav"
        path.write_bytes(c.get(job["links"]["artifacts"]["narration.wav"]).content)
    import wave

    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
    x, rate = dsp.read_wav(path)
    assert len(x) == rate * 9.5


def test_submit_client_waits_and_downloads(stack: Stack, tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "s.md"
    script.write_text(SHORT_SCRIPT, encoding="utf-8")
    out = tmp_path / "dl"
    # Paths relative to where the user runs it; a missing file refused before anything is sent.
    missing = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "submit", "s.md", "--video", "gone.mp4",
         "--url", stack.url, "--key", stack.keys["alpha"]],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert missing.returncode == 2, missing.stderr
    assert missing.stderr == "narrate: error: --video: no such file gone.mp4\n"
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "submit", "s.md", "--url", stack.url,
         "--key", stack.keys["alpha"], "--engine", "espeak", "--out", "dl"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    job_id = proc.stdout.splitlines()[0]
    assert sorted(p.name for p in out.iterdir()) == sorted(a for a in ARTIFACTS if a != "video.mp4")
    with stack.client() as c:
        job = c.get(f"/v1/jobs/{job_id}").json()
    assert job["engines"] == ["espeak", "espeak"]
    bad = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "submit", str(script), "--url", stack.url, "--key", "nope"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "401" in bad.stderr


def test_listing_pages_through_jobs_made_in_the_same_millisecond(stack: Stack) -> None:
    """3 milliseconds of 40 jobs each (as a busy fleet makes them), written through the
    store: pages of 7 return every job once, newest first."""
    from service.adapters.redis.jobstore import JobStore
    from service.domain.job import Job

    store = JobStore(stack.redis())
    base = 1_700_000_000_123

    def ms_of(job: Job) -> int:
        return int(job.created * 1000)  # as the store lists it

    made = []
    for ms in range(3):
        for n in range(40):
            job = make_job(f"{ms}{n:02d}" + "ab" * 15, "beta", (base + ms) / 1000, n=0)
            job.updated = base / 1000
            store.create(NewJob(job))
            made.append(job)
    try:
        seen: list[str] = []
        cursor = None
        with stack.client("beta") as c:
            while True:
                params = {"limit": 7} | ({"cursor": cursor} if cursor else {})
                page = c.get("/v1/jobs", params=params).json()
                seen += [j["id"] for j in page["jobs"]]
                if not (cursor := page["next_cursor"]):
                    break
            ours = [i for i in seen if i in {j.id for j in made}]
            assert len(ours) == len(set(ours)) == 120
            newest_first = sorted(made, key=lambda j: (ms_of(j), j.id), reverse=True)
            assert ours == [j.id for j in newest_first]
            # The cursor's earlier shape (a bare millisecond) still continues below it.
            below = c.get("/v1/jobs", params={"cursor": str(ms_of(made[40]))}).json()
            assert {j["id"] for j in below["jobs"]} == {j.id for j in made[:40]}
            bad = c.get("/v1/jobs", params={"cursor": "x:y"})
            assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["cursor"]
    finally:
        for job in made:
            store.discard(job)

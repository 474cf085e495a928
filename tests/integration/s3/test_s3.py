"""A fleet on object storage: a real S3 protocol server (moto's ThreadedMotoServer), a Redis
of the test's own, the API and two Celery worker processes, each with a data dir of its own,
so that anything still handed over through the local disk fails. The bundled GAGAR script
with a video rendered through the API comes out byte-identical to a local-storage render;
the TTS cache answers across workers; a delete leaves no object behind; the store going away
mid-job fails the job cleanly with nothing half-published served."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools import stack as devstack
from service.adapters.storage.s3 import S3Storage
from service.adapters.storage.s3client import S3Objects
from service.config import Settings
from service.domain.errors import InputError
from service.pipeline import staged_artifacts
from tests.support.data import GAGAR_EXAMPLE, SHORT_SCRIPT
from tests.support.s3 import AWS, BUCKET, PREFIX, S3Server, s3_env
from tests.support.stack import Stack, submit, wait_for

WORKERS = ("worker1", "worker2")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    server = S3Server()
    server.server.start()
    server.client.create_bucket(Bucket=BUCKET)
    yield server
    server.server.stop()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory, s3: S3Server) -> Iterator[Stack]:
    """The API (data dir ``api``) and two workers (``worker1``, ``worker2``), all on S3."""
    root = tmp_path_factory.mktemp("fleet")
    stack = devstack.start_stack(
        root / "api",
        workers=0,
        worker_app="tests.support.faults:worker_app",  # faults only where a worker asks
        env=s3_env(s3),
    )
    try:
        for name in WORKERS:
            start(stack, name)
        stack.wait_ready(2)
    except BaseException:
        stack.stop()
        raise
    yield stack
    stack.stop()


def data_dir(stack: Stack, name: str) -> Path:
    return stack.data_dir.parent / name


def start(stack: Stack, name: str, faults: str = "") -> None:
    d = data_dir(stack, name)
    d.mkdir(exist_ok=True)
    stack.start_worker(name, {"NARRATE_DATA_DIR": str(d), "NARRATE_TEST_FAULTS": faults})


def stop(stack: Stack, name: str) -> None:
    """SIGTERM: the worker leaves (an idle one at once; a step it held goes back to the queue)."""
    proc = stack.procs.pop(name)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def running(stack: Stack) -> list[str]:
    return [name for name in stack.procs if name.startswith("worker")]


def one_worker(stack: Stack) -> None:
    """At least one worker on the fleet: a test before may have left one (a worker start is
    ~2.5 CPU s, so the tests after the two-worker ones go on with what is there)."""
    if not running(stack):
        start(stack, "worker1")
    stack.wait_ready(1)


def leftovers(directory: Path) -> list[str]:
    """Every file (not directory) under ``directory``."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if not p.is_dir())


def download(c: httpx.Client, job: dict[str, Any]) -> dict[str, bytes]:
    out = {}
    for name, url in job["links"]["artifacts"].items():
        r = c.get(url)
        assert r.status_code == 200, (name, r.status_code)
        out[name] = r.content
    return out


def render(
    stack: Stack, script: str, video: Path | None
) -> tuple[dict[str, Any], dict[str, bytes]]:
    with stack.client() as c:
        r = submit(c, script, video)
        assert r.status_code == 202, r.text
        job = wait_for(c, r.json()["id"], timeout=240)
        assert job["status"] == "succeeded", job["error"]
        return job, download(c, job)


@pytest.fixture(scope="module")
def gagar_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from devtools.media import make_video

    # The script's length (61 s) with a small, slow picture: the video is stream-copied, its
    # pixels are not what the comparison is about.
    return make_video(tmp_path_factory.mktemp("gagar") / "gagar.mp4", 62, size="180x320", fps=10)


def test_gagar_with_video_on_s3_is_identical_to_a_local_render(
    fleet: Stack, s3: S3Server, gagar_video: Path, tmp_path: Path
) -> None:
    script = GAGAR_EXAMPLE.read_text(encoding="utf-8")
    job, remote = render(fleet, script, gagar_video)
    assert {s["worker"].split("@")[0] for s in job["segments"]} == set(WORKERS)
    assert {"narration.wav", "subtitles.srt", "video.mp4", "manifest.json"} <= set(remote)
    local_stack = devstack.start_stack(tmp_path / "local", workers=1)
    try:
        _, local = render(local_stack, script, gagar_video)
    finally:
        local_stack.stop()
    assert remote.keys() == local.keys()
    for name in remote:
        assert remote[name] == local[name], f"{name} differs from the local-storage render"
    # The store holds the inputs and the artifacts; the work files went with the job.
    keys = s3.keys(f"{PREFIX}alpha/{job['id']}/")
    assert f"{PREFIX}alpha/{job['id']}/input/source.video" in keys
    assert not [k for k in keys if "/work/" in k]
    # Nothing stayed on any machine's disk: not the upload at the API, not a segment at a worker.
    for name in WORKERS:
        assert leftovers(data_dir(fleet, name)) == [], name
    assert leftovers(fleet.data_dir / "scratch") == []
    assert not (fleet.data_dir / "artifacts").exists()


def test_artifacts_are_served_from_the_store_with_etag_range_and_redirect(
    fleet: Stack, short_video: Path
) -> None:
    job, files = render(fleet, SHORT_SCRIPT, short_video)
    url = job["links"]["artifacts"]["video.mp4"]
    body = files["video.mp4"]
    with fleet.client() as c:
        head = c.head(url)
        assert head.status_code == 200 and int(head.headers["content-length"]) == len(body)
        etag = head.headers["etag"]
        assert c.get(url, headers={"If-None-Match": etag}).status_code == 304
        part = c.get(url, headers={"Range": "bytes=100-4195"})
        assert part.status_code == 206 and part.content == body[100:4196]
        assert part.headers["content-range"] == f"bytes 100-4195/{len(body)}"
        tail = c.get(url, headers={"Range": "bytes=-10"})
        assert tail.status_code == 206 and tail.content == body[-10:]
        multi = c.get(url, headers={"Range": "bytes=0-9,20-29"})
        assert multi.status_code == 206 and body[20:30] in multi.content
        moved = c.get(url, params={"redirect": "1"})
        assert moved.status_code == 307
        direct = httpx.get(moved.headers["location"], timeout=30)  # no API key: the URL is it
        assert direct.status_code == 200 and direct.content == body
        seg = c.get(f"/v1/jobs/{job['id']}/segments/1/audio")
        assert seg.status_code == 200 and seg.content[:4] == b"RIFF"


def test_the_tts_cache_answers_across_workers(fleet: Stack) -> None:
    # Text no other test synthesized.
    script = SHORT_SCRIPT.replace("代码 Agent", "缓存 Agent").replace("评分员", "打分员")
    stop(fleet, "worker2")
    try:
        first, first_files = render(fleet, script, None)
        assert {s["worker"].split("@")[0] for s in first["segments"]} == {"worker1"}
        assert all(s["tts_calls"] > 0 for s in first["segments"])
        start(fleet, "worker2")
        fleet.wait_ready(2)
    finally:
        stop(fleet, "worker1")
    # worker2 alone from here on: the tests after this one need no second worker.
    second, second_files = render(fleet, script, None)
    # worker2 never synthesized this text and has nothing on its disk: every answer came
    # from what worker1 put in the store.
    assert {s["worker"].split("@")[0] for s in second["segments"]} == {"worker2"}
    assert [s["tts_calls"] for s in second["segments"]] == [0] * len(second["segments"])
    assert second_files == first_files
    assert leftovers(data_dir(fleet, "worker2")) == []


def test_a_delete_leaves_no_object_behind(fleet: Stack, s3: S3Server, short_video: Path) -> None:
    job, _ = render(fleet, SHORT_SCRIPT, short_video)
    prefix = f"{PREFIX}alpha/{job['id']}/"
    assert len(s3.keys(prefix)) >= 5  # the upload and the artifacts
    with fleet.client() as c:
        assert c.delete(f"/v1/jobs/{job['id']}").json()["result"] == "deleted"
        assert c.get(job["links"]["artifacts"]["narration.wav"]).status_code == 404
    assert s3.keys(prefix) == []


def test_multipart_upload_is_whole_or_absent(
    s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in AWS.items():
        monkeypatch.setenv(k, v)
    settings = Settings(data_dir=tmp_path, s3_endpoint_url=s3.url, s3_part_size=5 << 20)
    storage = S3Storage(S3Objects(settings, BUCKET), "unit/", tmp_path / "scratch")
    data = os.urandom(11 << 20)  # three parts
    kept = storage.receive("alpha", "job1", "video")
    for i in range(0, len(data), 1 << 16):
        kept.write(data[i : i + (1 << 16)])
        if kept.pending():
            kept.flush()
    assert len(kept.buffer) < 5 << 20  # memory holds one part at most
    assert s3.keys("unit/") == []  # nothing visible before the commit
    kept.commit()
    assert kept.path.read_bytes() == data  # the local copy the checks at the door read
    kept.close()
    assert not kept.path.exists()
    work = storage.workspace("alpha", "job1")
    assert work.input("video").read_bytes() == data
    work.close()
    dropped = storage.receive("alpha", "job2", "video")
    dropped.write(data)
    dropped.flush()
    dropped.abort()
    assert s3.keys("unit/") == ["unit/alpha/job1/input/source.video"]
    assert s3.client.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []
    storage.delete("alpha", "job1")
    assert s3.keys("unit/") == [] and leftovers(tmp_path) == []


def test_the_store_going_away_mid_job_fails_it_cleanly(
    fleet: Stack, s3: S3Server, short_video: Path
) -> None:
    """Segments are in the store, finalize is running (held at a gate), and the store stops:
    the job fails naming the store, nothing is served, the worker keeps nothing; once the
    store is back, a delete takes every object."""
    for name in running(fleet):
        stop(fleet, name)
    start(fleet, "worker3")  # a fresh data dir, to see it keeps nothing
    fleet.wait_ready(1)
    try:
        done, _ = render(fleet, SHORT_SCRIPT, None)
        with fleet.client() as c:
            held = SHORT_SCRIPT.replace("再叠 GRPO", "再叠 GRPO FINHOLDSTORE")
            job_id = submit(c, held, short_video).json()["id"]
            fleet.gate("STORE").reached()  # the segments are stored, finalize has begun
            s3.server.stop()
            fleet.gate("STORE").open()
            try:
                job = wait_for(c, job_id, timeout=90)
                assert job["status"] == "failed", job
                assert "object storage" in job["error"]["message"]
                assert job["artifacts"] == []
                r = c.get(f"/v1/jobs/{job_id}/artifacts/narration.wav")
                assert r.status_code == 404
                # An artifact of a job that did succeed: the store is away, the API says so.
                r = c.get(done["links"]["artifacts"]["narration.wav"])
                assert r.status_code == 503 and "object storage" in r.json()["detail"]
            finally:
                s3.server.start()
            assert leftovers(data_dir(fleet, "worker3")) == []
            c.delete(f"/v1/jobs/{job_id}")
        assert s3.keys(f"{PREFIX}alpha/{job_id}/") == []
    except BaseException:
        stop(fleet, "worker3")  # held at the gate, or the store away: not for the next test
        raise


def test_retention_sweeps_the_store(
    fleet: Stack, s3: S3Server, short_video: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload cut off mid-way (an unfinished multipart upload, no job) and a finished job
    past its days both leave the store; the TTS cache stays. (Last: it ends every job.)"""
    from service.adapters.redis.jobstore import JobStore
    from service.jobs.retention import DAY, Sweeper

    for k, v in AWS.items():
        monkeypatch.setenv(k, v)
    one_worker(fleet)
    job, _ = render(fleet, SHORT_SCRIPT, short_video)
    settings = Settings(data_dir=fleet.data_dir, s3_endpoint_url=s3.url, s3_part_size=5 << 20)
    storage = S3Storage(S3Objects(settings, BUCKET), PREFIX, fleet.data_dir / "scratch")
    cut = storage.receive("alpha", "cutoff1", "video")
    cut.write(os.urandom(6 << 20))
    cut.flush()  # one part sent, the request never ends
    assert s3.client.list_multipart_uploads(Bucket=BUCKET, Prefix=PREFIX).get("Uploads")
    store = JobStore(fleet.redis())
    sweeper = Sweeper(settings, store, store.sweeping(), storage)
    now = time.time()
    assert sweeper.sweep(now).orphans == 0  # changed just now: an upload still under way
    swept = sweeper.sweep(now + 3 * DAY, dry_run=True)
    assert (swept.jobs, swept.orphans) == (0, 1)
    assert sweeper.sweep(now + 3 * DAY).orphans == 1
    assert s3.client.list_multipart_uploads(Bucket=BUCKET, Prefix=PREFIX).get("Uploads", []) == []
    assert s3.keys(f"{PREFIX}alpha/{job['id']}/")  # 2 days after: the finished job stays
    swept = sweeper.sweep(now + 31 * DAY)
    assert swept.jobs >= 1 and swept.bytes > 100_000
    assert s3.keys(f"{PREFIX}alpha/") == [] and s3.keys(f"{PREFIX}cache/")
    with fleet.client() as c:
        assert c.get(f"/v1/jobs/{job['id']}").status_code == 404
    cut.close()


def test_segments_are_published_and_served_under_their_folder_only(
    s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in AWS.items():
        monkeypatch.setenv(k, v)
    settings = Settings(data_dir=tmp_path, s3_endpoint_url=s3.url)
    storage = S3Storage(S3Objects(settings, BUCKET), "segs/", tmp_path / "scratch")
    staged = storage.staging("alpha", "job1")
    (staged / "segments").mkdir()
    (staged / "segments" / "01.wav").write_bytes(b"RIFF0001")
    (staged / "timeline.edl").write_text("TITLE: t\n")
    (staged / "masters" / "douyin").mkdir(parents=True)  # a master's files: their folder too
    (staged / "masters" / "douyin" / "video.mp4").write_bytes(b"mp4")
    names = staged_artifacts(staged)
    assert storage.publish("alpha", "job1", staged, names) == [
        "timeline.edl",
        "segments/01.wav",
        "masters/douyin/video.mp4",
    ]
    assert s3.keys("segs/") == [
        "segs/alpha/job1/artifacts/masters/douyin/video.mp4",
        "segs/alpha/job1/artifacts/segments/01.wav",
        "segs/alpha/job1/artifacts/timeline.edl",
    ]
    served = storage.served("alpha", "job1", "segments/01.wav")
    assert served is not None and served.read(0, 8) == b"RIFF0001"
    master = storage.served("alpha", "job1", "masters/douyin/video.mp4")
    assert master is not None and master.read(0, 3) == b"mp4"
    for bad in (
        "segments/../../job2/artifacts/x",
        "../job2/artifacts/x",
        "input/source.video",
        "masters/../../job2/artifacts/x",
        "masters/douyin/../../x",
    ):
        with pytest.raises(InputError, match="invalid artifact name"):
            storage.served("alpha", "job1", bad)
    storage.delete("alpha", "job1")

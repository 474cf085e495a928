"""Batches over real Redis, Celery workers and uvicorn: mixed good and bad items both ways
(all refused, or the good ones created), videos and takes paired by name, the zip against
each job's own artifacts; and `narrate batch` against that service (the session's stack), on a terminal (a pty)
and off it."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools.stack import wait_for
from devtools.takes import take
from tests.integration.stack.shared import own_tenant
from tests.support.data import ROOT, make_video
from tests.support.helpers import check_render, read_manifest
from tests.support.stack import Stack
from tests.unit.api.test_takes import SCRIPT, on_phrases, phrases


def script(title: str, seconds: float = 2) -> str:
    return f"标题:{title}\n\n[段 1 · {seconds:g} 秒 开场] 代码测试通过以后,再做优化。\n"


BAD = "标题:坏\n\n[段 1 · 0 秒 开场] 没有时长。\n"


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_video(tmp_path_factory.mktemp("video") / "a.mp4", 3, size="320x240", fps=10)


def wait_batch(c: httpx.Client, batch_id: str, timeout: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state: dict[str, Any] = c.get(f"/v1/batches/{batch_id}").json()
        if state["status"] not in ("queued", "running"):
            return state
        time.sleep(0.3)
    raise TimeoutError(f"batch {batch_id} still {state['status']}")


def test_a_batch_through_the_service_all_or_partial(stack: Stack, clip: Path) -> None:
    files: list[tuple[str, Any]] = [
        ("script", ("a.md", script("甲", 3).encode(), "text/markdown")),
        ("script", ("b.md", script("乙").encode(), "text/markdown")),
        ("script", ("c.md", BAD.encode(), "text/markdown")),
        ("video", ("a.mp4", clip.read_bytes(), "video/mp4")),
        ("options", (None, '{"engine": "espeak"}')),
    ]
    with own_tenant(stack, "batches") as c:  # its listing holds only this test's jobs
        refused = c.post("/v1/batches", files=files)
        assert refused.status_code == 422, refused.text
        (problem,) = refused.json()["detail"]
        assert problem["loc"][:2] == ["items", 2] and "item 3 (c)" in problem["msg"]
        assert c.get("/v1/jobs").json()["jobs"] == []  # nothing of it was created
        r = c.post("/v1/batches", files=[*files, ("batch", (None, '{"partial": true}'))])
        assert r.status_code == 202, r.text
        assert [x["name"] for x in r.json()["refused"]] == ["c"]
        done = wait_batch(c, r.json()["id"])
        assert done["status"] == "succeeded" and done["counts"]["succeeded"] == 2
        items = {i["name"]: i for i in done["items"]}
        assert "video.mp4" in items["a"]["artifacts"]  # a.mp4 went with a.md
        assert "video.mp4" not in items["b"]["artifacts"]
        expected = {}
        for name, item in items.items():
            job = c.get(f"/v1/jobs/{item['job']}").json()
            assert job["batch"] == done["id"]
            for file, url in job["links"]["artifacts"].items():
                expected[f"{name}/{file}"] = c.get(url).content
        archive = zipfile.ZipFile(io.BytesIO(c.get(done["links"]["artifacts"]).content))
        assert sorted(archive.namelist()) == sorted(expected)
        assert all(archive.read(n) == data for n, data in expected.items())


def test_a_batch_items_take_is_stored_and_spoken(stack: Stack, tmp_path: Path) -> None:
    """intro.take-1.wav goes with intro.md as a job's take-1 does (as test_takes_api.py
    checks it): stored with the item's inputs, segment 1 spoken from it (its cues on the
    take's phrases), the render checked as for synthesis; outro is synthesised."""
    right, onsets = take(phrases(0), voice="en-us+f4", wpm=205, pitch=80)
    files: list[tuple[str, Any]] = [
        ("script", ("intro.md", SCRIPT.encode(), "text/markdown")),
        ("script", ("outro.md", script("乙").encode(), "text/markdown")),
        ("take", ("intro.take-1.wav", right, "audio/wav")),
        ("options", (None, '{"engine": "espeak"}')),
    ]
    with stack.client("alpha") as c:
        r = c.post("/v1/batches", files=files)
        assert r.status_code == 202, r.text
        done = wait_batch(c, r.json()["id"])
        assert done["status"] == "succeeded", done
        zipfile.ZipFile(io.BytesIO(c.get(done["links"]["artifacts"]).content)).extractall(tmp_path)
    jobs = {i["name"]: i["job"] for i in done["items"]}
    inputs = stack.data_dir / "artifacts" / "alpha" / jobs["intro"] / "input"
    assert (inputs / "source.take-1").is_file()
    assert not list((stack.data_dir / "artifacts" / "alpha" / jobs["outro"]).rglob("*.take*"))
    manifest = read_manifest(tmp_path / "intro")
    first, second = manifest["segments"]
    assert first["take"] and first["voice"] == "take-1" and first["alignment_cost"] > 0
    assert not second["take"] and second["engine"] == "espeak"
    assert not any(s["take"] for s in read_manifest(tmp_path / "outro")["segments"])
    starts = [c["start"] * 1000 for c in manifest["cues"] if c["layer"] == 0]
    mine = [s for s in starts if s < first["end"] * 1000]
    assert len(mine) >= 2 and on_phrases(mine, onsets), (mine, onsets)
    check_render(tmp_path / "intro", [7.0, 6.0], None)


def narrate_batch(stack: Stack, *args: str | Path, tty: bool = False) -> tuple[int, str, str]:
    """`narrate batch ARGS` against the stack: (exit code, stdout, stderr), stderr on a pty
    of its own when ``tty``."""
    argv = [sys.executable, "-m", "service.cli.main", "batch", *map(str, args)]
    argv += ["--url", stack.url, "--key", stack.keys["alpha"]]
    if not tty:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, cwd=ROOT)
    os.close(slave)
    seen = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the pty's other end closed: the command has exited
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    out = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=60), out, seen.decode(errors="replace")


def test_narrate_batch_off_a_terminal(stack: Stack, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    for name in ("x", "y"):
        (tmp_path / "in" / f"{name}.md").write_text(script(name), encoding="utf-8")
    code, _, err = narrate_batch(stack, tmp_path / "in", "--out", tmp_path / "out")
    assert code == 0, err
    assert "\x1b[" not in err  # plain lines, one per change
    assert any(line.split()[:2] == ["x", "succeeded"] for line in err.splitlines())
    for name in ("x", "y"):
        assert (tmp_path / "out" / name / "narration.wav").stat().st_size > 1000
        assert (tmp_path / "out" / name / "subtitles.srt").is_file()
    (tmp_path / "in" / "z.md").write_text(BAD, encoding="utf-8")
    code, _, err = narrate_batch(stack, tmp_path / "in")
    assert code == 2 and "item 3 (z)" in err  # refused whole: nothing submitted
    code, _, err = narrate_batch(stack, tmp_path / "in", "--partial")
    assert code == 1 and "refused z" in err and "1 items did not succeed" in err


def test_narrate_batch_on_a_terminal_draws_one_table(stack: Stack, tmp_path: Path) -> None:
    for name in ("p", "q"):
        (tmp_path / f"{name}.md").write_text(script(name), encoding="utf-8")
    code, out, err = narrate_batch(stack, tmp_path / "p.md", tmp_path / "q.md", tty=True)
    assert code == 0, err
    assert len(out.strip()) == 32  # the batch id on stdout
    assert err.count("item ") >= 2 and "\x1b[3F" in err  # the table, redrawn in place
    last = err.rsplit("item ", 1)[1]
    assert "p " in last and "q " in last and last.count("succeeded") == 2
    assert "espeak" in last


def test_narrate_batch_follows_the_live_stream_of_a_running_batch(stack: Stack) -> None:
    """Against real workers: the table is drawn from the batch's event stream as the items
    move (each change a line), polling only if the stream fails."""
    import io

    from service.cli.batch import Table, _follow

    items = [{"name": n, "script": script(n)} for n in ("s1", "s2")]
    asked: list[str] = []
    out = io.StringIO()
    with stack.client("alpha") as c:
        made = c.post("/v1/batches", json={"items": items, "options": {"engine": "espeak"}})
        assert made.status_code == 202, made.text
        batch_id = made.json()["id"]
        c.event_hooks["response"] = [lambda r: asked.append(f"{r.status_code} {r.url.path}")]
        state = _follow(c, batch_id, Table(out))
    assert [i["status"] for i in state["items"]] == ["succeeded", "succeeded"]
    assert asked[0] == f"200 /v1/batches/{batch_id}/events"  # the stream, not a poll
    assert [a for a in asked if a.endswith("/events")] == asked[:1]  # one stream, to the end
    lines = out.getvalue().splitlines()
    assert len(lines) > 2 and lines[-1].split()[1] == "succeeded"  # drawn as the items moved


def test_items_that_end_while_a_batch_cancel_runs_keep_their_artifacts(tmp_path: Path) -> None:
    """A batch of three on two workers: items a and b wait at their finalize (FINHOLDDONE),
    c behind them, then at its segment (SEGHOLDWAIT). The cancel reads all three unfinished,
    then waits (the cancel gate) while a and b finish; let go, it cancels c and leaves a and
    b, succeeded, with every artifact served (a refused cancel fell through to deleting)."""
    from tests.support.stack import start_stack

    def held(gate: str) -> bytes:
        return f"标题:等\n\n[段 1 · 2 秒 开场] 代码测试通过以后 {gate},再做优化。\n".encode()

    stack = start_stack(tmp_path, workers=2, faults="gates,cancel_gate=BATCH")
    try:
        files: list[tuple[str, Any]] = [
            ("script", ("a.md", held("FINHOLDDONE"), "text/markdown")),
            ("script", ("b.md", held("FINHOLDDONE"), "text/markdown")),
            ("script", ("c.md", held("SEGHOLDWAIT"), "text/markdown")),
            ("options", (None, '{"engine": "espeak"}')),
        ]
        with stack.client("alpha") as c:
            r = c.post("/v1/batches", files=files)
            assert r.status_code == 202, r.text
            batch = r.json()
            jobs = {i["name"]: i["job"] for i in batch["items"]}
            stack.gate("DONE").reached()

            def cancel() -> httpx.Response:
                with stack.client("alpha") as other:
                    return other.delete(f"/v1/batches/{batch['id']}")

            with ThreadPoolExecutor(1) as pool:
                pending = pool.submit(cancel)
                stack.gate("BATCH").reached()  # the items read, no cancel written yet
                stack.gate("DONE").open()
                for name in ("a", "b"):
                    wait_for(c, jobs[name])
                stack.gate("BATCH").open()
                answer = pending.result(120)
            assert answer.status_code == 200 and answer.json()["canceled"] == 1, answer.text
            for name in ("a", "b"):
                got = c.get(f"/v1/jobs/{jobs[name]}")
                assert got.status_code == 200, f"item {name}, which ended, was deleted"
                job = got.json()
                assert job["status"] == "succeeded", job
                for url in job["links"]["artifacts"].values():
                    assert c.get(url).status_code == 200, url
            assert c.get(f"/v1/jobs/{jobs['c']}").json()["status"] == "canceled"
            stack.gate("WAIT").open()
    finally:
        stack.stop()

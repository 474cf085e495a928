"""ffmpeg that hangs, fails, or runs out of disk during the mux: the job fails cleanly with
the cause, its process group is killed, temp files go, and no partial MP4 is published."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.data import SHORT_SCRIPT
from tests.support.helpers import eventually
from tests.support.stack import Stack, start_stack, submit, wait_for

# An ffmpeg stand-in whose behaviour the test picks by writing a mode file.
WRAPPER = """#!/bin/sh
mode=$(cat "{mode}" 2>/dev/null)
case "$mode" in
  hang) sleep 600 & sleep 600 ;;
  fail) echo "Invalid data found when processing input: boom" >&2; exit 1 ;;
  *) exec ffmpeg "$@" ;;
esac
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("media")
    wrapper = tmp / "ffmpeg-wrapper"
    wrapper.write_text(WRAPPER.format(mode=tmp / "mode"))
    wrapper.chmod(0o755)
    # One worker: each test runs one job at a time, and a worker start is ~2.5 CPU s.
    s = start_stack(tmp / "data", workers=1, ffmpeg=wrapper, ffmpeg_timeout=3)
    yield s
    s.stop()


def mode(stack: Stack, value: str) -> None:
    (stack.data_dir.parent / "mode").write_text(value)


def leftovers(stack: Stack, tenant: str, job_id: str) -> list[str]:
    job_dir = stack.data_dir / "artifacts" / tenant / job_id
    while True:
        try:
            return sorted(
                str(p.relative_to(job_dir))
                for p in job_dir.rglob("*")
                if p.is_file() and "input" not in p.parts
            )
        except FileNotFoundError:  # the job's cleanup removed a folder under the walk: again
            continue


def cleaned(stack: Stack, job_id: str) -> None:
    """Until the failed job's work files are gone: its other segment's task, taken by the
    worker after the failure, discards them in its own time."""
    eventually(lambda: leftovers(stack, "alpha", job_id) == [], "the failed job's files are gone")


def test_ffmpeg_hang_is_killed_at_the_timeout(stack: Stack, short_video: Path) -> None:
    mode(stack, "hang")
    with stack.client() as c:
        job = wait_for(c, submit(c, SHORT_SCRIPT, short_video).json()["id"], timeout=60)
    assert job["status"] == "failed" and "timed out" in job["error"]["message"]
    cleaned(stack, job["id"])
    # The whole process group went, the backgrounded sleep included.
    assert subprocess.run(["pgrep", "-f", "sleep 600"], capture_output=True).returncode == 1


def test_ffmpeg_failure_reports_its_stderr(stack: Stack, short_video: Path) -> None:
    mode(stack, "fail")
    with stack.client() as c:
        job = wait_for(c, submit(c, SHORT_SCRIPT, short_video).json()["id"], timeout=60)
    error = job["error"]["message"]
    assert job["status"] == "failed" and "exited 1" in error and "boom" in error
    cleaned(stack, job["id"])


def test_disk_full_during_mux_fails_cleanly(stack: Stack, tmp_path: Path) -> None:
    mode(stack, "real")
    big = tmp_path / "big.mp4"
    # A noisy picture, lossless: a large file (~30 MB at 320x180, far past the 3 MB of room
    # left beside it), so the MP4 cannot fit where the inputs just did.
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "nullsrc=s=320x180:r=30:d=11,geq=random(1)*255:128:128",
         "-f", "lavfi", "-i", "sine=d=11", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
         "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(big)],
        check=True,
    )  # fmt: skip
    size = big.stat().st_size
    tenant_dir = stack.data_dir / "artifacts" / "beta"
    tenant_dir.mkdir(parents=True, exist_ok=True)
    # Room for the upload and the narration, not for the muxed copy of the video.
    quota = size + 3 * 1024 * 1024
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={quota}", "tmpfs", str(tenant_dir)],
        capture_output=True,
    )
    if mounted.returncode != 0:  # needs root; CI here runs as root
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        with stack.client("beta") as c:
            job = wait_for(c, submit(c, SHORT_SCRIPT, big).json()["id"], timeout=60)
        assert job["status"] == "failed", job
        error = job["error"]
        assert "ffmpeg-wrapper exited" in error["message"]  # the mux is what ran out of room
        assert "No space left on device" in error["message"], error
        assert error["code"] == "media.failed"
        assert leftovers(stack, "beta", job["id"]) == []  # no partial MP4, no temp files
        assert job["artifacts"] == []
    finally:
        subprocess.run(["umount", "-l", str(tenant_dir)], check=False)

"""Errors and warnings as data, in-process: every 422 is a list of {code, msg, loc}; a job's
status carries error {code, message, segment} and warnings [{code, message, segment}]; a
server that cannot run ffprobe answers 503, never "not a readable video file"."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.fleet import Fleet, make_fleet
from tests.unit.api.test_jobs import SPEC


def test_a_bad_spec_is_a_list_of_problems_each_naming_its_segment_and_field(fleet: Fleet) -> None:
    bad = SPEC | {"segments": [{"text": "", "seconds": 3}, {"text": "坏", "seconds": 0}]}
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=bad)
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert [(p["code"], p["loc"]) for p in detail] == [
            ("script.invalid", ["segments", 0, "text"]),
            ("script.invalid", ["segments", 1, "seconds"]),
        ]
        assert detail[0]["msg"].startswith("segment 1 text: ")
        assert detail[1]["msg"].startswith("segment 2 seconds: ")
        r = c.post("/v1/jobs", json=SPEC | {"options": {"voice": "zh-CN-YunxiNeurl"}})
        assert r.status_code == 422 and r.json()["detail"] == [
            {"code": "voice.unknown", "msg": r.json()["detail"][0]["msg"], "loc": ["voice"]}
        ]
        assert "zh-CN-YunxiNeurl" in r.json()["detail"][0]["msg"]
        fast = SPEC | {"segments": [{"text": "评分员对轨迹排序,低排名降权。" * 3, "seconds": 1}]}
        r = c.post("/v1/jobs", json=fast | {"fit": {"on_overflow": "fail"}})
        assert r.status_code == 422, r.text
        (over,) = r.json()["detail"]
        assert over["code"] == "pace.overflow" and over["loc"] == ["segments", 0]
        assert over["msg"].startswith("segment 1: ") and "fit.max_pace" in over["msg"]
        # FastAPI's own validation answers in the same shape, its message naming where.
        r = c.get("/v1/jobs", params={"limit": "many"})
        assert r.status_code == 422
        (limit,) = r.json()["detail"]
        assert limit["code"] == "request.invalid" and limit["loc"] == ["query", "limit"]
        assert limit["msg"].startswith("limit: ")
        r = c.get("/v1/voices", params={"language": "z"})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "language"]
        assert c.get("/v1/jobs").json()["jobs"] == []


def test_a_failed_job_says_its_code_message_and_segment(tmp_path: Path) -> None:
    broken = make_fleet(tmp_path, espeak="/nonexistent/espeak-ng")
    with broken.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        broken.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
    assert job["status"] == "failed"
    error = job["error"]
    assert (error["code"], error["segment"]) == ("engine.failed", 1), error
    assert error["message"].startswith("segment 1: espeak: ") and "not usable" in error["message"]


def test_a_job_with_warnings_lists_them_as_notices_in_its_status_and_manifest(
    fleet: Fleet,
) -> None:
    fast = {"text": "评分员对轨迹排序,低排名降权。" * 2, "seconds": 1.5}
    spec = SPEC | {"segments": [SPEC["segments"][0], fast], "fit": {"on_overflow": "squeeze"}}
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=spec).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert job["error"] is None
        squeezed = [w for w in job["warnings"] if w["code"] == "pace.squeezed"]
        assert len(squeezed) == 1 and squeezed[0]["segment"] == 2
        assert squeezed[0]["message"].startswith("segment 2: squeezed to ")
        assert all(set(w) == {"code", "message", "segment"} for w in job["warnings"])
        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
    assert manifest["warnings"] == job["warnings"]


def test_a_server_without_ffprobe_answers_503_not_an_unreadable_video(
    tmp_path: Path, short_video: Path
) -> None:
    """ffprobe missing (or timing out) says nothing about the file: the server's problem."""
    broken = make_fleet(tmp_path, ffprobe="/nonexistent/ffprobe")
    files = {
        "script": (
            "job.json",
            json.dumps({k: v for k, v in SPEC.items() if k != "options"}).encode(),
            "application/json",
        ),
        "video": ("clip.mp4", short_video.read_bytes(), "video/mp4"),
    }
    with broken.client() as c:
        r = c.post("/v1/jobs", files=files)
        assert r.status_code == 503, r.text
        assert r.headers["Retry-After"] and "not a readable" not in r.text
        assert r.json()["detail"].startswith("ffprobe cannot be run on this server")
        assert "/nonexistent" not in r.text
        assert c.get("/v1/jobs").json()["jobs"] == []


def test_an_ffprobe_that_hangs_is_a_503_too(tmp_path: Path, short_video: Path) -> None:
    hang = tmp_path / "ffprobe"
    hang.write_text("#!/bin/sh\nexec sleep 30\n")
    hang.chmod(0o755)
    broken = make_fleet(tmp_path, ffprobe=str(hang), probe_timeout=0.5)
    spec = {k: v for k, v in SPEC.items() if k != "options"}
    files = {
        "script": ("job.json", json.dumps(spec).encode(), "application/json"),
        "video": ("clip.mp4", short_video.read_bytes(), "video/mp4"),
    }
    with broken.client() as c:
        r = c.post("/v1/jobs", files=files)
    assert r.status_code == 503, r.text
    assert r.json()["detail"].startswith("ffprobe timed out")

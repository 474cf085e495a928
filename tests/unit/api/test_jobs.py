"""The job API's contract, in-process: submit, follow, download, idempotency, errors, cancel,
tenants, re-render from the TTS cache. The same flows run over real Redis, Celery and uvicorn
in tests/integration/stack/test_api.py (the integration tier)."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path
from typing import Any

import srt

from service.pipeline.door import Planner
from tests.support.fleet import Fleet

SPEC: dict[str, Any] = {  # a request body: JSON
    "title": "in-process",
    "language": "zh",
    "segments": [
        {"text": "代码测试通过以后,再做优化。", "seconds": 3},
        {"text": "评分员对轨迹排序,低排名降权。", "seconds": 3.5},
    ],
    "options": {"engine": "espeak"},
}


def test_a_job_is_queued_then_worked_and_its_artifacts_served(fleet: Fleet) -> None:
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=SPEC)
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        queued = c.get(f"/v1/jobs/{job_id}").json()
        assert queued["status"] == "queued" and queued["progress"] == 0
        assert fleet.work() == 3  # two segments, then the finalize the last one enqueued
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert job["progress"] == 1.0 and job["engines"] == ["espeak", "espeak"]
        cues = list(srt.parse(c.get(job["links"]["artifacts"]["subtitles.srt"]).text))
        said = "".join(cue.content.replace("\n", "") for cue in cues)
        for segment in SPEC["segments"]:
            assert segment["text"].rstrip("。").replace(",", "") in said.replace(" ", "")
        assert cues[0].start.total_seconds() < 0.5 and cues[-1].end.total_seconds() <= 6.5
        with wave.open(io.BytesIO(c.get(job["links"]["artifacts"]["narration.wav"]).content)) as w:
            assert abs(w.getnframes() / w.getframerate() - 6.5) < 0.05
        listed = c.get("/v1/jobs").json()["jobs"]
        assert [j["id"] for j in listed] == [job_id]


def test_an_idempotency_key_makes_one_job_and_refuses_another_body(fleet: Fleet) -> None:
    with fleet.client() as c:
        first = c.post("/v1/jobs", json=SPEC, headers={"Idempotency-Key": "round-2"})
        again = c.post("/v1/jobs", json=SPEC, headers={"Idempotency-Key": "round-2"})
        assert first.status_code == again.status_code == 202
        assert first.json()["id"] == again.json()["id"]
        other = c.post(
            "/v1/jobs", json=SPEC | {"title": "another"}, headers={"Idempotency-Key": "round-2"}
        )
        assert other.status_code == 409
        assert fleet.queue.waiting() == 2  # one job's segment tasks, once
        assert len(c.get("/v1/jobs").json()["jobs"]) == 1


def test_a_bad_segment_is_refused_naming_it_and_nothing_is_queued(fleet: Fleet) -> None:
    bad = SPEC | {"segments": [SPEC["segments"][0], {"text": "坏", "seconds": 0}]}
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=bad)
        assert r.status_code == 422 and "segment 2" in r.text and "seconds" in r.text
        r = c.post("/v1/jobs", json=SPEC | {"options": {"voice": "zh-CN-YunxiNeurl"}})
        assert r.status_code == 422 and "zh-CN-YunxiNeurl" in r.text
        assert c.get("/v1/jobs").json()["jobs"] == []
    assert fleet.queue.waiting() == 0


def test_a_canceled_job_is_never_worked_and_leaves_no_files(fleet: Fleet) -> None:
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        assert c.delete(f"/v1/jobs/{job_id}").json()["result"] == "canceled"
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "canceled" and job["artifacts"] == []
        assert all(s["state"] == "queued" for s in job["segments"])
        assert not (fleet.settings.artifacts_dir / "local" / job_id).exists()
        assert c.delete(f"/v1/jobs/{job_id}").json()["result"] == "deleted"
        assert c.get(f"/v1/jobs/{job_id}").status_code == 404


def test_tenants_cannot_see_each_other(keyed: tuple[Fleet, str, str]) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as a, fleet.client(beta) as b, fleet.client() as anonymous:
        job_id = a.post("/v1/jobs", json=SPEC).json()["id"]
        fleet.work()
        assert a.get(f"/v1/jobs/{job_id}").json()["status"] == "succeeded"
        assert b.get(f"/v1/jobs/{job_id}").status_code == 404
        assert b.get(f"/v1/jobs/{job_id}/artifacts/narration.wav").status_code == 404
        assert b.delete(f"/v1/jobs/{job_id}").status_code == 404
        assert b.get("/v1/jobs").json()["jobs"] == []
        assert anonymous.get("/v1/jobs").status_code == 401
        assert a.get(f"/v1/jobs/{job_id}").json()["status"] == "succeeded"


def test_a_rerender_speaks_only_the_edited_segment(fleet: Fleet) -> None:
    with fleet.client() as c:
        parent = c.post("/v1/jobs", json=SPEC).json()["id"]
        fleet.work()
        source = c.get(f"/v1/jobs/{parent}/source").json()
        spec = source["spec"]
        spec["segments"][1]["text"] = "评分员对轨迹重新排序。"
        r = c.post(f"/v1/jobs/{parent}/rerender", json={"spec": spec})
        assert r.status_code == 202, r.text
        fleet.work()
        child = c.get(f"/v1/jobs/{r.json()['id']}").json()
        assert child["status"] == "succeeded" and child["parent"] == parent
        calls = [s["tts_calls"] for s in child["segments"]]
        assert calls[0] == 0 and calls[1] >= 1, calls  # the unchanged one: all from the cache


def test_a_job_is_planned_and_its_video_probed_once(fleet: Fleet, short_video: Path) -> None:
    """At the door; the segment tasks and finalize run on the plan the record keeps."""
    pipeline = fleet.service.pipeline
    assert fleet.steps.pipeline is pipeline
    calls = {"plan": 0, "probe": 0}
    probe = pipeline.media.probe

    class Counted(Planner):
        def plan(self, *args: Any, **kwargs: Any) -> Any:
            calls["plan"] += 1
            return super().plan(*args, **kwargs)

    def counted_probe(*args: Any, **kwargs: Any) -> Any:
        calls["probe"] += 1
        return probe(*args, **kwargs)

    door = pipeline.door
    pipeline.door = Counted(door.settings, door.engines, door.media, door.catalog, door.styles)
    pipeline.media.probe = counted_probe  # type: ignore[method-assign]
    with fleet.client() as c:
        files = {
            "script": (
                "job.json",
                json.dumps({k: v for k, v in SPEC.items() if k != "options"}).encode(),
                "application/json",
            ),
            "video": ("clip.mp4", short_video.read_bytes(), "video/mp4"),
        }
        r = c.post("/v1/jobs", files=files, data={"options": json.dumps({"engine": "espeak"})})
        assert r.status_code == 202, r.text
        fleet.work()
        job = c.get(f"/v1/jobs/{r.json()['id']}").json()
    assert job["status"] == "succeeded", job["error"]
    assert "video.mp4" in job["artifacts"]
    assert calls == {"plan": 1, "probe": 1}

"""Several masters from one render through the API, in-process: a job with a video and two
masters (douyin burned in, youtube soft) lists and serves each master's files under
masters/<name>/ and no top-level video, its manifest says each master's loudness and picture,
its options record each master's preset as applied; a batch's zip carries the master files; a
bad master is a 422 naming masters[i].<field>, and nothing is stored."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from tests.support.data import make_video
from tests.support.fleet import Fleet

SPEC: dict[str, Any] = {
    "title": "masters",
    "language": "zh",
    "segments": [{"text": "代码测试通过以后,再做优化。", "seconds": 2.5}],
}
MASTERS: list[dict[str, Any]] = [
    {"name": "douyin", "preset": "douyin"},
    {"name": "youtube", "preset": "youtube", "burn_in": False},
]
FILES = ("narration.wav", "subtitles.ass", "subtitles.srt", "subtitles.vtt", "video.mp4")


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    return make_video(path, 3, size="240x426", fps=10).read_bytes()


def test_a_job_with_two_masters_serves_each_under_masters_name(fleet: Fleet, clip: bytes) -> None:
    options = {"engine": "espeak", "masters": MASTERS}
    files: dict[str, Any] = {
        "script": ("job.json", json.dumps(SPEC).encode(), "application/json"),
        "video": ("clip.mp4", clip, "video/mp4"),
        "options": (None, json.dumps(options)),
    }
    with fleet.client() as c:
        r = c.post("/v1/jobs", files=files)
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        expected = {f"masters/{m['name']}/{f}" for m in MASTERS for f in FILES}
        assert expected <= set(job["artifacts"]) and "video.mp4" not in job["artifacts"]
        assert {"narration.wav", "subtitles.srt", "manifest.json"} <= set(job["artifacts"])
        video = c.get(job["links"]["artifacts"]["masters/douyin/video.mp4"])
        assert video.status_code == 200 and video.headers["content-type"] == "video/mp4"
        assert "masters-douyin-video.mp4" in video.headers["content-disposition"]
        vtt = c.get(f"/v1/jobs/{job_id}/artifacts/masters/youtube/subtitles.vtt")
        assert vtt.status_code == 200 and vtt.text.startswith("WEBVTT")
        assert c.get(f"/v1/jobs/{job_id}/artifacts/masters/douyin/../video.mp4").status_code == 404
        assert c.get(f"/v1/jobs/{job_id}/artifacts/masters/tiktok/video.mp4").status_code == 404

        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
        douyin, youtube = manifest["masters"]
        assert (douyin["name"], douyin["burn_in"], douyin["picture"]) == ("douyin", True, "encoded")
        assert (youtube["burn_in"], youtube["picture"], youtube["screen_text"]) == (
            False,
            "source",
            False,
        )
        for m in (douyin, youtube):
            assert m["loudness"]["target_lufs"] == -14 and m["loudness"]["passed"] is True
            assert set(m["artifacts"]) == {f"masters/{m['name']}/{f}" for f in FILES}
        assert manifest["loudness"]["target_lufs"] == -16  # the job's own narration.wav
        # The job's options keep each master's preset as applied (a re-render looks none up).
        source = c.get(f"/v1/jobs/{job_id}/source").json()
        recorded = source["options"]["masters"]
        assert recorded[0]["preset_values"]["loudness"]["target_lufs"] == -14
        assert recorded[1]["burn_in"] is False


@pytest.mark.parametrize(
    ("master", "loc", "words"),
    [
        ({"name": "a", "engine": "edge"}, ["options", "masters", 1, "engine"], "synthesis"),
        ({"name": "douyin"}, ["options", "masters", 1, "name"], "used twice"),
        ({"name": "a", "preset": "tiktok"}, ["options", "masters", 1, "preset"], "tiktok"),
        ({"name": "a", "style": "nope"}, ["options", "masters", 1, "style"], "nope"),
        ({"name": "A"}, ["options", "masters", 1, "name"], "not a master name"),
    ],
)
def test_a_bad_master_is_a_422_naming_it_and_nothing_is_stored(
    fleet: Fleet, master: dict[str, Any], loc: list[Any], words: str
) -> None:
    body = SPEC | {"options": {"masters": [MASTERS[0], master]}}
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=body)
        assert r.status_code == 422, r.text
        problem = r.json()["detail"][0]
        assert problem["loc"] == loc and words in problem["msg"], problem
        assert problem["msg"].startswith(f"options masters[1].{loc[-1]}: "), problem
        assert c.get("/v1/jobs").json()["jobs"] == []


def test_a_batchs_zip_carries_every_masters_files(fleet: Fleet) -> None:
    body = {
        "items": [{"name": "intro", "spec": SPEC}],
        "options": {"engine": "espeak", "masters": MASTERS},
    }
    with fleet.client() as c:
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 202, r.text
        fleet.work()
        done = c.get(f"/v1/batches/{r.json()['id']}").json()
        assert done["status"] == "succeeded"
        archive = zipfile.ZipFile(io.BytesIO(c.get(done["links"]["artifacts"]).content))
        names = set(archive.namelist())
        for m in MASTERS:  # no video: each master's sound and subtitles
            assert f"intro/masters/{m['name']}/narration.wav" in names
            assert f"intro/masters/{m['name']}/subtitles.ass" in names
        job = c.get(f"/v1/jobs/{done['items'][0]['job']}").json()
        for name in job["artifacts"]:
            assert archive.read(f"intro/{name}") == c.get(job["links"]["artifacts"][name]).content
        bad = {"items": [{"name": "x", "spec": SPEC, "options": {"masters": [{"name": "a", "voice": "v"}]}}]}  # fmt: skip
        refused = c.post("/v1/batches", json=bad)
        assert refused.status_code == 422 and "masters[0].voice" in refused.text


def test_a_rerender_keeps_each_masters_preset_as_applied_after_the_preset_changes(
    fleet: Fleet,
) -> None:
    with fleet.client() as c:
        assert c.put("/v1/presets/ours", json={"loudness": {"target_lufs": -20}}).status_code == 200
        options = {"engine": "espeak", "masters": [{"name": "ours", "preset": "ours"}]}
        parent = c.post("/v1/jobs", json=SPEC | {"options": options}).json()["id"]
        fleet.work()
        # The preset changes after the job: neither the job nor its re-render follows it.
        assert c.put("/v1/presets/ours", json={"loudness": {"target_lufs": -12}}).status_code == 200
        r = c.post(f"/v1/jobs/{parent}/rerender", json={"spec": SPEC})
        assert r.status_code == 202, r.text
        fleet.work()
        for job_id in (parent, r.json()["id"]):
            job = c.get(f"/v1/jobs/{job_id}").json()
            assert job["status"] == "succeeded", job["error"]
            manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
            (ours,) = manifest["masters"]
            assert ours["loudness"]["target_lufs"] == -20 and ours["loudness"]["passed"] is True


def test_the_stage_follows_a_multi_master_job_through_its_encode_and_mux(
    fleet: Fleet, clip: bytes
) -> None:
    """The stages a client sees (its events' ``stage``) go loudness, encode NN%, mux: the
    stage said ``loudness`` from the end of the loudness passes through every encode."""
    from tests.unit.api.test_events import parse_sse

    options = {"engine": "espeak", "masters": MASTERS}
    files: dict[str, Any] = {
        "script": ("job.json", json.dumps(SPEC).encode(), "application/json"),
        "video": ("clip.mp4", clip, "video/mp4"),
        "options": (None, json.dumps(options)),
    }
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", files=files).json()["id"]
        fleet.work()
        events = parse_sse(c.get(f"/v1/jobs/{job_id}/events").text)
    stages = [e[2]["stage"] for e in events if e[1] == "update" and e[2].get("stage")]
    after = stages[stages.index("loudness") + 1 :]
    assert any(s.startswith("encode ") for s in after), stages
    assert "mux" in after and after.index("mux") > max(
        i for i, s in enumerate(after) if s.startswith("encode ")
    ), stages

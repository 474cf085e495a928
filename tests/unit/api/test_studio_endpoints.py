"""What the studio page lists and downloads, in-process: job search and filters
(GET /v1/jobs?status=&batch=&q=), and a job's artifacts as one streamed zip."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from tests.support.fleet import Fleet


def spec(title: str, text: str = "代码测试通过以后,再做优化。") -> dict[str, Any]:
    return {
        "title": title,
        "language": "zh",
        "segments": [{"text": text, "seconds": 3}],
        "options": {"engine": "espeak"},
    }


def ids(page: dict[str, Any]) -> list[str]:
    return [j["id"] for j in page["jobs"]]


def test_jobs_are_searched_by_title_and_filtered_by_status_and_batch(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        launch = a.post("/v1/jobs", json=spec("Product Launch 发布会")).json()["id"]
        fleet.work()
        other = a.post("/v1/jobs", json=spec("季度总结")).json()["id"]
        item = {k: v for k, v in spec("launch teaser").items() if k != "options"}
        body = {"items": [{"name": "x", "spec": item}], "options": {"engine": "espeak"}}
        made = a.post("/v1/batches", json=body).json()
        batch, teaser = made["id"], made["items"][0]["job"]
        theirs = b.post("/v1/jobs", json=spec("launch (beta's)")).json()["id"]
        assert ids(a.get("/v1/jobs").json()) == [teaser, other, launch]
        assert ids(a.get("/v1/jobs", params={"q": "LAUNCH"}).json()) == [teaser, launch]
        assert ids(a.get("/v1/jobs", params={"q": "发布"}).json()) == [launch]
        assert ids(a.get("/v1/jobs", params={"q": launch[:8]}).json()) == [launch]
        assert ids(a.get("/v1/jobs", params={"status": "queued"}).json()) == [teaser, other]
        assert ids(a.get("/v1/jobs", params={"batch": batch}).json()) == [teaser]
        both = {"q": "launch", "status": "succeeded"}
        assert ids(a.get("/v1/jobs", params=both).json()) == [launch]
        first = a.get("/v1/jobs", params={"q": "launch", "limit": 1}).json()
        assert ids(first) == [teaser] and first["next_cursor"]
        params = {"q": "launch", "limit": 1, "cursor": first["next_cursor"]}
        assert ids(a.get("/v1/jobs", params=params).json()) == [launch]
        # Tenants stay apart: beta's search never finds alpha's jobs, nor alpha's batch.
        assert ids(b.get("/v1/jobs", params={"q": "launch"}).json()) == [theirs]
        assert ids(b.get("/v1/jobs", params={"batch": batch}).json()) == []
        for bad in ({"limit": 201}, {"q": "x" * 101}, {"batch": "../x"}, {"status": "done"}):
            assert a.get("/v1/jobs", params=bad).status_code == 422, bad


def test_a_jobs_artifacts_zip_holds_every_artifact_byte_for_byte(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    two = spec("zip") | {
        "segments": [{"text": "第一段。", "seconds": 2}, {"text": "第二段。", "seconds": 2}]
    }
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        job_id = a.post("/v1/jobs", json=two).json()["id"]
        fleet.work()
        job = a.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        expected = {name: a.get(url).content for name, url in job["links"]["artifacts"].items()}
        z = a.get(f"/v1/jobs/{job_id}/artifacts.zip")
        assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
        assert f"job-{job_id}.zip" in z.headers["content-disposition"]
        archive = zipfile.ZipFile(io.BytesIO(z.content))
        assert archive.namelist() == list(expected)  # the job's own order
        assert {"narration.wav", "subtitles.srt", "manifest.json"} <= set(expected)
        for name, data in expected.items():
            assert archive.read(name) == data, name
            assert archive.getinfo(name).compress_type == zipfile.ZIP_STORED
        assert b.get(f"/v1/jobs/{job_id}/artifacts.zip").status_code == 404  # not beta's

"""Word-by-word captions over the API, in-process: the option (or the style) reaches the
ASS artifact through the stored plan and the segment results (their boundaries survive the
JSON hand-off between workers); SRT stays static; a bad mode is refused by name."""

from __future__ import annotations

import json
from typing import Any

import pysubs2
from fastapi.testclient import TestClient

from tests.support.fleet import Fleet
from tests.unit.api.test_jobs import SPEC


def _artifact(c: TestClient, job: dict[str, Any], name: str) -> str:
    text: str = c.get(job["links"]["artifacts"][name]).text
    return text


def test_highlight_captions_reach_the_ass_artifact(fleet: Fleet) -> None:
    with fleet.client() as c:
        body = SPEC | {"options": {"engine": "espeak", "captions": "highlight"}}
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        ass = pysubs2.SSAFile.from_string(_artifact(c, job, "subtitles.ass"))
        narration = [e for e in ass.events if e.style == "Narration"]
        assert narration and all("\\t(" in e.text and "&H0AD6FF&" in e.text for e in narration)
        assert "\\t(" not in _artifact(c, job, "subtitles.srt")
        manifest = json.loads(_artifact(c, job, "manifest.json"))
        assert manifest["style"]["captions"] == "highlight"


def test_reveal_from_the_style_and_a_bad_mode_refused(fleet: Fleet) -> None:
    with fleet.client() as c:
        body = SPEC | {"style": {"captions": "reveal"}, "options": {"engine": "espeak"}}
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert "\\alpha&HFF&" in _artifact(c, job, "subtitles.ass")
        r = c.post("/v1/jobs", json=SPEC | {"options": {"captions": "karaoke"}})
        assert r.status_code == 422 and "captions" in r.text


def test_a_master_may_set_its_own_captions(fleet: Fleet) -> None:
    masters = [{"name": "plain"}, {"name": "karaoke", "captions": "highlight"}]
    with fleet.client() as c:
        body = SPEC | {"options": {"engine": "espeak", "masters": masters}}
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert "\\t(" in _artifact(c, job, "masters/karaoke/subtitles.ass")
        assert "\\t(" not in _artifact(c, job, "masters/plain/subtitles.ass")

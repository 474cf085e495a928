"""Job presets through the API, in-process: the shipped ones, a tenant's own (saved, listed,
replaced, deleted, invisible to other tenants), validated as job options are, and a job made
from one: its loudness target reached and reported, its values recorded as applied so a later
edit of the preset changes neither it nor its re-render."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from service import audio as dsp
from tests.support.fleet import Fleet

SHIPPED = {"douyin", "bilibili", "youtube-shorts", "youtube", "podcast", "broadcast-r128"}
SPEC: dict[str, Any] = {
    "title": "presets",
    "language": "zh",
    "segments": [
        {"text": "代码测试通过以后,再做优化。", "seconds": 3},
        {"text": "评分员对轨迹排序,低排名降权。", "seconds": 3.5},
    ],
}
LOUD = {
    "description": "our shorts",
    "loudness": {"target_lufs": -15, "true_peak_dbtp": -2},
    "on_overflow": "squeeze",
    "music_level": -12,
}


def _names(c: TestClient) -> dict[str, str]:
    r = c.get("/v1/presets")
    assert r.status_code == 200, r.text
    return {p["name"]: p["kind"] for p in r.json()}


def test_a_tenant_saves_lists_replaces_and_deletes_its_presets_and_no_one_else_sees_them(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as a, fleet.client(beta) as b, fleet.client() as anonymous:
        assert anonymous.get("/v1/presets").status_code == 401
        assert {n for n, kind in _names(a).items() if kind == "shipped"} == SHIPPED
        shipped = a.get("/v1/presets/broadcast-r128").json()
        assert shipped["values"]["loudness"] == {
            "target_lufs": -23.0,
            "true_peak_dbtp": -1.0,
            "lra_max": 20.0,
        }
        assert "R128" in shipped["source"]

        r = a.put("/v1/presets/our-shorts", json=LOUD)
        assert r.status_code == 200, r.text
        assert r.json()["kind"] == "saved" and r.json()["values"]["loudness"]["target_lufs"] == -15
        assert _names(a)["our-shorts"] == "saved"
        # Another tenant: not listed, not readable, not deletable; its own name is its own.
        assert "our-shorts" not in _names(b)
        assert b.get("/v1/presets/our-shorts").status_code == 404
        assert b.delete("/v1/presets/our-shorts").status_code == 404
        assert b.put("/v1/presets/our-shorts", json={"burn_in": True}).status_code == 200
        assert a.get("/v1/presets/our-shorts").json()["values"]["loudness"]["target_lufs"] == -15

        replaced = a.put("/v1/presets/our-shorts", json={"loudness": {"target_lufs": -18}})
        assert replaced.json()["values"] == {"loudness": {"target_lufs": -18.0}}
        # Shipped presets are read-only, for everyone.
        assert a.put("/v1/presets/douyin", json=LOUD).status_code == 409
        assert a.delete("/v1/presets/douyin").status_code == 409

        assert a.delete("/v1/presets/our-shorts").json() == {
            "name": "our-shorts",
            "result": "deleted",
        }
        assert a.get("/v1/presets/our-shorts").status_code == 404
        assert b.get("/v1/presets/our-shorts").json()["values"] == {"burn_in": True}


def test_a_preset_is_validated_like_job_options_naming_the_field_and_the_limit(
    fleet: Fleet,
) -> None:
    cases = [
        ({"loudness": {"target_lufs": -40}}, ["loudness.target_lufs", "-31"]),
        ({"loudness": {"target_lufs": -14, "true_peak_dbtp": 1}}, ["true_peak_dbtp", "0"]),
        ({"music_level": 5}, ["music_level", "0"]),
        ({"engine": "festival"}, ["engine", "espeak"]),
        ({"loudnes": {"target_lufs": -14}}, ["loudnes"]),
        ({"preset": "douyin"}, ["preset", "another preset"]),
    ]
    with fleet.client() as c:
        for body, words in cases:
            r = c.put("/v1/presets/mine", json=body)
            assert r.status_code == 422, (body, r.text)
            for word in words:
                assert word in r.text, (body, word, r.text)
        assert c.put("/v1/presets/Not A Name", json={}).status_code == 422
        # Job options are held to the same ranges.
        r = c.post("/v1/jobs", json=SPEC | {"options": {"loudness": {"target_lufs": -5}}})
        assert r.status_code == 422 and "target_lufs" in r.text and "-9" in r.text
        assert "mine" not in _names(c)


def _narration(c: TestClient, job: dict[str, Any]) -> np.ndarray:
    raw = c.get(job["links"]["artifacts"]["narration.wav"]).content
    with wave.open(io.BytesIO(raw)) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float32) / 32768


def _finished(fleet: Fleet, c: TestClient, job_id: str) -> dict[str, Any]:
    fleet.work()
    job: dict[str, Any] = c.get(f"/v1/jobs/{job_id}").json()
    assert job["status"] == "succeeded", job["error"]
    return job


def test_a_job_from_a_preset_reaches_its_loudness_and_keeps_the_values_it_was_given(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    rate = fleet.settings.sample_rate
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        assert a.put("/v1/presets/our-shorts", json=LOUD).status_code == 200
        # Another tenant cannot use it: it does not exist for them.
        r = b.post("/v1/jobs", json=SPEC | {"options": {"preset": "our-shorts"}})
        assert r.status_code == 422 and "our-shorts" in r.text

        options = {"preset": "our-shorts", "engine": "espeak", "music_level": -20}
        job_id = a.post("/v1/jobs", json=SPEC | {"options": options}).json()["id"]
        job = _finished(fleet, a, job_id)
        manifest = a.get(job["links"]["artifacts"]["manifest.json"]).json()
        loud = manifest["loudness"]
        assert loud["target_lufs"] == -15 and loud["true_peak_ceiling_dbtp"] == -2
        assert loud["passed"] is True and loud["loudness_range_lu"] >= 0
        # Measured again on the file served: the figures the manifest states.
        x = _narration(a, job)
        assert abs(dsp.integrated_lufs(x, rate) - -15) <= 0.5
        assert dsp.true_peak_db(x) <= -2.0
        assert abs(dsp.integrated_lufs(x, rate) - loud["integrated_lufs"]) <= 0.05

        source = a.get(f"/v1/jobs/{job_id}/source").json()["options"]
        assert source["preset"] == "our-shorts"
        assert source["preset_values"]["loudness"] == {"target_lufs": -15.0, "true_peak_dbtp": -2.0}
        # Applied: the preset's values, the job's own over them.
        assert source["on_overflow"] == "squeeze" and source["music_level"] == -20
        assert source["engine"] == "espeak"

        # A later edit (then removal) of the preset changes neither the job nor a re-render.
        a.put("/v1/presets/our-shorts", json={"loudness": {"target_lufs": -20}})
        a.delete("/v1/presets/our-shorts")
        spec = a.get(f"/v1/jobs/{job_id}/source").json()["spec"]
        r = a.post(f"/v1/jobs/{job_id}/rerender", json={"spec": spec})
        assert r.status_code == 202, r.text
        child = _finished(fleet, a, r.json()["id"])
        again = a.get(child["links"]["artifacts"]["manifest.json"]).json()["loudness"]
        assert again["target_lufs"] == -15 and abs(again["integrated_lufs"] - -15) <= 0.5


def test_a_job_overrides_one_loudness_figure_and_keeps_the_presets_other(fleet: Fleet) -> None:
    rate = fleet.settings.sample_rate
    options = {"preset": "broadcast-r128", "engine": "espeak", "loudness": {"target_lufs": -20}}
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC | {"options": options}).json()["id"]
        job = _finished(fleet, c, job_id)
        loud = c.get(job["links"]["artifacts"]["manifest.json"]).json()["loudness"]
        assert (loud["target_lufs"], loud["true_peak_ceiling_dbtp"], loud["lra_max_lu"]) == (
            -20,
            -1,
            20,
        )
        assert loud["passed"] is True
        assert abs(dsp.integrated_lufs(_narration(c, job), rate) - -20) <= 0.5
        # Without a preset or a target: the service's (NARRATE_TARGET_LUFS, -16).
        plain = _finished(fleet, c, c.post("/v1/jobs", json=SPEC | {"options": {}}).json()["id"])
        loud = c.get(plain["links"]["artifacts"]["manifest.json"]).json()["loudness"]
        assert loud["target_lufs"] == -16 and loud["passed"] is True


def test_the_podcast_preset_refuses_a_video_and_keeps_nothing(
    fleet: Fleet, short_video: Path
) -> None:
    with fleet.client() as c:
        files = {
            "script": ("job.json", json.dumps(SPEC).encode(), "application/json"),
            "video": ("clip.mp4", short_video.read_bytes(), "video/mp4"),
        }
        options = json.dumps({"preset": "podcast", "engine": "espeak"})
        r = c.post("/v1/jobs", files=files, data={"options": options})
        assert r.status_code == 422 and "audio_only" in r.text and "without a video" in r.text
        assert c.get("/v1/jobs").json()["jobs"] == []
        # Without the video it is an audio master.
        r = c.post("/v1/jobs", json=SPEC | {"options": json.loads(options)})
        job = _finished(fleet, c, r.json()["id"])
        assert "video.mp4" not in job["artifacts"]
        loud = c.get(job["links"]["artifacts"]["manifest.json"]).json()["loudness"]
        assert loud["target_lufs"] == -16 and loud["passed"] is True


def test_a_script_parsed_at_a_preset_is_checked_at_its_values(fleet: Fleet) -> None:
    """/v1/scripts:parse resolves the preset as a job would: broadcast-r128's ``fail`` policy
    and the tenant's presets, an unknown one named."""
    with fleet.client() as c:
        script = json.dumps(SPEC)
        body = {"script": script, "name": "job.json", "options": {"preset": "broadcast-r128"}}
        r = c.post("/v1/scripts:parse", json=body)
        assert r.status_code == 200, r.text
        body["options"] = {"preset": "nope"}
        r = c.post("/v1/scripts:parse", json=body)
        assert r.status_code == 422 and "'nope'" in r.text and "broadcast-r128" in r.text

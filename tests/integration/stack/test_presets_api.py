"""Presets end to end: saved through uvicorn into Redis, used by a job the Celery workers
render in their own processes at the preset's loudness, invisible to another tenant."""

from __future__ import annotations

from tests.support.data import SHORT_SCRIPT
from tests.support.stack import Stack, submit, wait_for


def test_a_saved_preset_drives_a_job_the_workers_render(stack: Stack) -> None:
    preset = {"loudness": {"target_lufs": -20, "true_peak_dbtp": -3}, "on_overflow": "squeeze"}
    with stack.client("alpha") as a, stack.client("beta") as b:
        r = a.put("/v1/presets/quiet", json=preset)
        assert r.status_code == 200, r.text
        assert "quiet" not in {p["name"] for p in b.get("/v1/presets").json()}
        assert submit(b, SHORT_SCRIPT, options={"preset": "quiet"}).status_code == 422
        r = submit(a, SHORT_SCRIPT, options={"preset": "quiet", "engine": "espeak"})
        assert r.status_code == 202, r.text
        job = wait_for(a, r.json()["id"])
        assert job["status"] == "succeeded", job["error"]
        loud = a.get(job["links"]["artifacts"]["manifest.json"]).json()["loudness"]
        assert (loud["target_lufs"], loud["true_peak_ceiling_dbtp"]) == (-20, -3)
        assert loud["passed"] is True and loud["true_peak_dbtp"] <= -3
        assert abs(loud["integrated_lufs"] + 20) <= 0.5
        source = a.get(f"/v1/jobs/{job['id']}/source").json()["options"]
        assert source["preset"] == "quiet" and source["preset_values"]["on_overflow"] == "squeeze"

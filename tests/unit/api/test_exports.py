"""A job with ``exports`` over the API, in-process: the timelines, the package and each
fitted segment (segments/NN.wav, the one artifact name with a slash) are listed and served;
a name that would leave the job's artifacts is not."""

from __future__ import annotations

import io
import wave
import zipfile

import opentimelineio as otio
import pytest

from service.adapters.storage.local import artifact_file
from service.domain.errors import InputError
from tests.support.fleet import Fleet
from tests.unit.api.test_jobs import SPEC

EXPORTED = {"timeline.otio", "timeline.edl", "timeline-package.zip"}


def test_a_jobs_exports_and_segments_are_listed_and_served(fleet: Fleet) -> None:
    with fleet.client() as c:
        body = SPEC | {"options": {"engine": "espeak", "exports": ["otio", "edl"]}}
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert EXPORTED | {"segments/01.wav", "segments/02.wav"} <= set(job["artifacts"])
        assert "timeline.fcpxml" not in job["artifacts"]  # only what was asked for
        r = c.get(job["links"]["artifacts"]["segments/02.wav"])
        assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
        assert "segments-02.wav" in r.headers["content-disposition"]
        with wave.open(io.BytesIO(r.content)) as w:
            assert abs(w.getnframes() / w.getframerate() - 3.5) < 0.01  # its fitted slot
        tl = otio.adapters.read_from_string(c.get(job["links"]["artifacts"]["timeline.otio"]).text)
        urls = [clip.media_reference.target_url for clip in tl.find_clips()]
        assert urls == ["segments/01.wav", "segments/02.wav"]
        package = c.get(f"/v1/jobs/{job_id}/artifacts/timeline-package.zip")
        assert package.headers["content-type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(package.content)) as zf:
            assert set(urls) | {"timeline.otio", "timeline.edl"} <= set(zf.namelist())
        for name in (  # (a client resolves a plain segments/../ itself, before sending)
            "segments/..%2Fmanifest.json",
            "segments/..%2F..%2F..%2Fkeys.json",
            "segments/%2e%2e/manifest.json",
            "segments/03.wav",
            "segments/01.wav/x",
            "segments",
            "work/01.wav",
            "segments//01.wav",
        ):
            got = c.get(f"/v1/jobs/{job_id}/artifacts/{name}")
            assert got.status_code == 404, name


def test_a_job_without_exports_publishes_no_segments(fleet: Fleet) -> None:
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert not [a for a in job["artifacts"] if a.startswith(("segments/", "timeline"))]


def test_an_unknown_export_is_refused_by_name(fleet: Fleet) -> None:
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=SPEC | {"options": {"exports": ["aaf"]}})
        assert r.status_code == 422 and "'otio', 'fcpxml', 'fcp7' or 'edl'" in r.text


@pytest.mark.parametrize("name", ["../x.wav", "segments/../../x", "/etc/passwd", "a/b.wav"])
def test_storage_refuses_an_artifact_name_outside_the_job(name: str) -> None:
    with pytest.raises(InputError):
        artifact_file(name)

"""The Traditional and bilingual options over the API, in-process: a bad value is a 422
naming its field; a zh-TW voice gets subtitles.zh-Hant.* by default; a translated segment
gets subtitles.en.* and the manifest says which segments have none."""

from __future__ import annotations

from typing import Any

import pytest
import srt

from service.adapters.text.hant import OpenccConverter
from tests.support.fleet import Fleet
from tests.unit.api.test_jobs import SPEC


@pytest.mark.parametrize(
    ("options", "field", "said"),
    [
        ({"traditional": "cn"}, "traditional", "'tw', 'hk' or 'none'"),
        ({"burn_in_script": "hant"}, "burn_in_script", "traditional: tw or hk"),
        ({"burn_in_script": "hant", "traditional": "none"}, "burn_in_script", "traditional: tw"),
        ({"burn_in_script": "latin"}, "burn_in_script", "'hans' or 'hant'"),
    ],
)
def test_a_bad_script_option_is_a_422_naming_its_field(
    fleet: Fleet, options: dict[str, Any], field: str, said: str
) -> None:
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=SPEC | {"options": {"engine": "espeak", **options}})
        assert r.status_code == 422, r.text
        (problem,) = r.json()["detail"]
        assert problem["loc"][-1] == field and said in problem["msg"], problem


def test_an_english_job_cannot_ask_for_a_traditional_track(fleet: Fleet) -> None:
    body = {"language": "en", "segments": [{"text": "Tests pass first.", "seconds": 3}]}
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=body | {"options": {"engine": "espeak", "traditional": "tw"}})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "traditional"


def test_an_english_job_cannot_carry_a_translation(fleet: Fleet) -> None:
    segments = [{"text": "Tests pass first.", "seconds": 3, "translation": "测试先通过。"}]
    with fleet.client() as c:
        r = c.post("/v1/jobs", json={"language": "en", "segments": segments})
        assert r.status_code == 422
        (problem,) = r.json()["detail"]
        assert problem["loc"][-3:] == ["segments", 0, "translation"], problem


def test_a_translation_over_its_limit_is_refused_naming_the_segment(fleet: Fleet) -> None:
    segments = [SPEC["segments"][0] | {"translation": "word " * 900}]
    with fleet.client() as c:
        r = c.post("/v1/jobs", json=SPEC | {"segments": segments})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["segments", 0, "translation"]


def test_a_taiwan_voice_gets_a_traditional_track_and_a_translation_an_english_one(
    fleet: Fleet,
) -> None:
    segments = [
        SPEC["segments"][0] | {"translation": "Once the tests pass, we optimise."},
        SPEC["segments"][1],
    ]
    body = SPEC | {"voice": "zh-TW-HsiaoChenNeural", "segments": segments}
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        links = job["links"]["artifacts"]
        for name in ("zh-Hant.srt", "zh-Hant.vtt", "zh-Hant.ass", "en.srt", "en.vtt"):
            assert f"subtitles.{name}" in job["artifacts"]
        simp = list(srt.parse(c.get(links["subtitles.srt"]).text))
        hant = list(srt.parse(c.get(links["subtitles.zh-Hant.srt"]).text))
        english = list(srt.parse(c.get(links["subtitles.en.srt"]).text))
        assert [(s.start, s.end) for s in simp] == [(t.start, t.end) for t in hant]
        convert = OpenccConverter().convert
        assert [convert(s.content, "tw") for s in simp] == [t.content for t in hant]
        assert "評分員" in hant[-1].content  # 评分员, converted
        assert " ".join(e.content.replace("\n", " ") for e in english) == (
            "Once the tests pass, we optimise."
        )
        assert english[-1].end.total_seconds() <= 3.0  # all under segment 1 (its slot: 3 s)
        manifest = c.get(links["manifest.json"]).json()
        assert manifest["traditional"] == {
            "variant": "tw",
            "chosen_by": "voice",
            "burned_in": False,
        }
        assert manifest["translations"] == {"segments_without": [2], "qualifiers_without": []}
        assert "subtitles.en.vtt" in manifest["subtitle_tracks"]


def test_a_taiwan_voice_with_traditional_none_gets_the_simplified_track_alone(
    fleet: Fleet,
) -> None:
    body = SPEC | {"voice": "zh-TW-HsiaoChenNeural", "options": {"traditional": "none"}}
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=body).json()["id"]
        fleet.work()
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        assert "subtitles.srt" in job["artifacts"]
        assert not [a for a in job["artifacts"] if "zh-Hant" in a]
        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
        assert "traditional" not in manifest
        assert manifest["subtitle_tracks"] == ["subtitles.srt", "subtitles.vtt", "subtitles.ass"]

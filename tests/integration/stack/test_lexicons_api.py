"""Pronunciation dictionaries end to end: a PLS file imported through uvicorn into Redis, a
job that names it rendered by the Celery workers in their own processes, its engine given 单
as shan4 for that tenant, dān for another tenant's identical job; the export gives the same
rules back."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.stack import Stack, wait_for

PLS = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="x-pinyin" xml:lang="zh-CN">
  <lexeme>
    <grapheme>单</grapheme>
    <phoneme>shan4</phoneme>
  </lexeme>
</lexicon>
"""
SPEC: dict[str, Any] = {
    "title": "单先生",
    "language": "zh",
    "segments": [{"text": "单先生明天到上海。", "seconds": 4}],
}


def _given(client: httpx.Client, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What the engine was given for the segment (the manifest's spoken_text), and the job."""
    r = client.post("/v1/jobs", json={**SPEC, "options": {"engine": "espeak", **options}})
    assert r.status_code == 202, r.text
    job = wait_for(client, r.json()["id"])
    assert job["status"] == "succeeded", job["error"]
    manifest = client.get(job["links"]["artifacts"]["manifest.json"]).json()
    return manifest["segments"][0]["spoken_text"], job


def test_a_pls_dictionary_changes_what_the_engine_is_given_for_its_tenant_only(
    stack: Stack,
) -> None:
    with stack.client("alpha") as a, stack.client("beta") as b:
        files = {"file": ("surnames.pls", PLS.encode(), "application/pls+xml")}
        r = a.post("/v1/lexicons", files=files, data={"name": "surnames"})
        assert r.status_code == 201, r.text
        lid, version = r.json()["id"], r.json()["version"]
        assert version == 1

        mine, job = _given(a, {"lexicons": [lid]})
        theirs, _ = _given(b, {})
        assert mine.split()[0] == "shan4", mine
        assert theirs.split()[0] == "dan1", theirs
        source = a.get(f"/v1/jobs/{job['id']}/source").json()
        assert source["options"]["lexicons"] == [{"id": lid, "version": 1}]

        refused = b.post("/v1/jobs", json={**SPEC, "options": {"lexicons": [lid]}})
        assert refused.status_code == 422 and refused.json()["detail"][0]["code"] == (
            "lexicon.unknown"
        )
        assert b.get(f"/v1/lexicons/{lid}/pls").status_code == 404

        exported = a.get(f"/v1/lexicons/{lid}/pls")
        assert exported.status_code == 200
        again = a.post(
            "/v1/lexicons",
            files={"file": ("back.pls", exported.content, "application/pls+xml")},
            data={"name": "back"},
        ).json()
        first = a.get(f"/v1/lexicons/{lid}").json()["rules"]
        assert first == [{"grapheme": "单", "kind": "pinyin", "value": "shan4"}]
        assert a.get(f"/v1/lexicons/{again['id']}").json()["rules"] == first
        for gone in (lid, again["id"]):
            assert a.delete(f"/v1/lexicons/{gone}").status_code == 200

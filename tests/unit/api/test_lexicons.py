"""Pronunciation dictionaries through the API, in-process (the in-memory store, espeak-ng):
imported from PLS or JSON, versioned, exported back, each tenant's own; a job that names one
is given its readings, records the version it used, and keeps it after the dictionary changes."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from tests.support.fleet import Fleet

PLS = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="x-pinyin" xml:lang="zh-CN">
  <lexeme>
    <grapheme>单</grapheme>
    <phoneme>shan4</phoneme>
  </lexeme>
  <lexeme>
    <grapheme>GRPO</grapheme>
    <alias>G R P O</alias>
    <phoneme alphabet="ipa">dʒiː ɑːr piː oʊ</phoneme>
  </lexeme>
</lexicon>
"""
SPEC: dict[str, Any] = {
    "title": "单先生",
    "language": "zh",
    "segments": [{"text": "单先生来了。", "seconds": 3}],
}


def _import(c: TestClient, text: str = PLS, name: str = "surnames") -> Any:
    files = {"file": ("surnames.pls", text.encode(), "application/pls+xml")}
    return c.post("/v1/lexicons", files=files, data={"name": name})


def _spoken(fleet: Fleet, c: TestClient, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What the engine was given for segment 1 (the manifest's spoken_text), and the job."""
    r = c.post("/v1/jobs", json={**SPEC, "options": options})
    assert r.status_code == 202, r.text
    fleet.work()
    job = c.get(f"/v1/jobs/{r.json()['id']}").json()
    assert job["status"] == "succeeded", job
    manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
    return manifest["segments"][0]["spoken_text"], job


def test_a_pls_file_imported_is_listed_read_and_exported_as_the_same_rules(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        r = _import(a)
        assert r.status_code == 201, r.text
        made = r.json()
        assert made["version"] == 1 and made["name"] == "surnames" and made["count"] == 3
        lid = made["id"]
        rules = a.get(f"/v1/lexicons/{lid}").json()["rules"]
        assert rules == [
            {"grapheme": "单", "kind": "pinyin", "value": "shan4"},
            {"grapheme": "GRPO", "kind": "alias", "value": "G R P O"},
            {"grapheme": "GRPO", "kind": "ipa", "value": "dʒiː ɑːr piː oʊ"},
        ]
        assert [d["id"] for d in a.get("/v1/lexicons").json()] == [lid]
        exported = a.get(f"/v1/lexicons/{lid}/pls")
        assert exported.headers["content-type"].startswith("application/pls+xml")
        again = _import(a, exported.text, "again").json()
        assert a.get(f"/v1/lexicons/{again['id']}").json()["rules"] == rules

        # Another tenant: none of it exists.
        assert b.get("/v1/lexicons").json() == []
        for path in ("", "/pls", "/versions"):
            assert b.get(f"/v1/lexicons/{lid}{path}").status_code == 404
        assert b.put(f"/v1/lexicons/{lid}", json={"name": "x", "rules": []}).status_code == 404
        assert b.delete(f"/v1/lexicons/{lid}").status_code == 404
        assert a.get(f"/v1/lexicons/{lid}").status_code == 200


def test_a_bad_pls_is_a_422_naming_the_line(fleet: Fleet) -> None:
    with fleet.client() as c:
        cases = {
            PLS.replace("shan4", "shan"): "line 6: '单': 'shan' is not pinyin with tones",
            PLS.replace(
                "</grapheme>\n    <phoneme>", "\n    <phoneme>", 1
            ): "line 7: not well-formed",
            '<?xml version="1.0"?>\n<!DOCTYPE lexicon [<!ENTITY x "y">]>\n<lexicon/>': (
                "line 2: a DOCTYPE or entity declaration is not accepted"
            ),
            PLS.replace('alphabet="x-pinyin"', 'alphabet="x-sampa"'): (
                "line 6: phoneme alphabet 'x-sampa' is not one narrate reads"
            ),
            PLS.replace("<grapheme>GRPO</grapheme>", ""): "line 8: the lexeme has no grapheme",
        }
        for text, said in cases.items():
            r = _import(c, text)
            assert r.status_code == 422, r.text
            problem = r.json()["detail"][0]
            assert problem["code"] == "lexicon.invalid" and problem["loc"] == ["file"]
            assert said in problem["msg"], problem["msg"]
        long = {"name": "x", "rules": [{"grapheme": "单" * 33, "kind": "alias", "value": "a"}]}
        r = c.post("/v1/lexicons", json=long)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["rules", 0, "grapheme"]
        assert "rules[0].grapheme: String should have at most 32 characters" in r.text
        assert c.get("/v1/lexicons").json() == []  # nothing kept


def test_a_job_reads_the_dictionary_it_names_at_the_version_it_was_accepted_with(
    keyed: tuple[Fleet, str, str],
) -> None:
    fleet, alpha, beta = keyed
    with fleet.client(alpha) as a, fleet.client(beta) as b:
        lid = _import(a).json()["id"]
        plain, _ = _spoken(fleet, b, {})
        assert plain.split()[0] == "dan1", plain  # the default reading
        r = b.post("/v1/jobs", json={**SPEC, "options": {"lexicons": [lid]}})
        assert r.status_code == 422, r.text  # not beta's to use
        assert r.json()["detail"][0]["code"] == "lexicon.unknown"
        assert r.json()["detail"][0]["loc"] == ["options", "lexicons", 0]

        said, job = _spoken(fleet, a, {"lexicons": [lid]})
        assert "shan4" in said, said
        manifest = a.get(job["links"]["artifacts"]["manifest.json"]).json()
        assert manifest["lexicons"] == [
            {"id": lid, "version": 1, "name": "surnames", "entries": 1, "skipped": []}
        ]  # 单 only: GRPO is not in the text, so the plan does not keep it
        record = fleet.store.get(job["id"])
        assert record is not None
        assert record.submitted.model_dump(mode="json")["lexicons"] == [{"id": lid, "version": 1}]
        assert [(u.id, u.version) for u in record.plan.lexicons] == [(lid, 1)]
        codes = [w["code"] for w in job["warnings"]]
        assert "lexicon.ipa_skipped" not in codes  # GRPO's IPA has an alias beside it

        # Version 2 reads 单 as dān again; the job's re-render keeps version 1.
        v2 = {"name": "surnames", "rules": [{"grapheme": "单", "kind": "pinyin", "value": "dān"}]}
        assert a.put(f"/v1/lexicons/{lid}", json=v2).json()["version"] == 2
        assert [v["version"] for v in a.get(f"/v1/lexicons/{lid}/versions").json()] == [1, 2]
        assert a.get(f"/v1/lexicons/{lid}?version=1").json()["rules"][0]["value"] == "shan4"
        source = a.get(f"/v1/jobs/{job['id']}/source").json()
        r = a.post(f"/v1/jobs/{job['id']}/rerender", json={"spec": source["spec"]})
        assert r.status_code == 202, r.text
        fleet.work()
        child = a.get(f"/v1/jobs/{r.json()['id']}").json()
        manifest = a.get(child["links"]["artifacts"]["manifest.json"]).json()
        assert "shan4" in manifest["segments"][0]["spoken_text"]
        latest, _ = _spoken(fleet, a, {"lexicons": [lid]})
        assert "shan4" not in latest and "dan1" in latest, latest
        pinned, _ = _spoken(fleet, a, {"lexicons": [{"id": lid, "version": 1}]})
        assert "shan4" in pinned

        # Deleted: a re-render of the job keeps the version its plan holds; a new job naming
        # it is refused.
        assert a.delete(f"/v1/lexicons/{lid}").status_code == 200
        r = a.post(f"/v1/jobs/{job['id']}/rerender", json={"spec": source["spec"]})
        assert r.status_code == 202, r.text
        fleet.work()
        child = a.get(f"/v1/jobs/{r.json()['id']}").json()
        manifest = a.get(child["links"]["artifacts"]["manifest.json"]).json()
        assert "shan4" in manifest["segments"][0]["spoken_text"]
        r = a.post("/v1/jobs", json={**SPEC, "options": {"lexicons": [lid]}})
        assert r.status_code == 422 and "you have no dictionary" in r.text, r.text


def test_the_jobs_own_pronunciations_win_and_ipa_only_words_are_said_to_be_skipped(
    fleet: Fleet,
) -> None:
    with fleet.client() as c:
        rules = [
            {"grapheme": "单", "kind": "pinyin", "value": "shàn"},
            {"grapheme": "先生", "kind": "ipa", "value": "ɕjɛn ʂəŋ"},
        ]
        lid = c.post("/v1/lexicons", json={"name": "mixed", "rules": rules}).json()["id"]
        spec = {**SPEC, "pronunciations": {"单": "chan2"}}
        r = c.post("/v1/jobs", json={**spec, "options": {"lexicons": [lid]}})
        assert r.status_code == 202, r.text
        fleet.work()
        job = c.get(f"/v1/jobs/{r.json()['id']}").json()
        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
        assert "chan2" in manifest["segments"][0]["spoken_text"]
        skipped = [w for w in job["warnings"] if w["code"].startswith("lexicon.")]
        assert [w["code"] for w in skipped] == ["lexicon.ipa_skipped"]
        assert "先生" in skipped[0]["message"]


def test_a_rule_saved_from_the_studio_is_a_new_version(fleet: Fleet) -> None:
    with fleet.client() as c:
        lid = c.post("/v1/lexicons", json={"name": "ours", "rules": []}).json()["id"]
        add: dict[str, Any] = {"rules": [{"grapheme": "单", "value": "shan4"}]}  # kind: pinyin
        r = c.post(f"/v1/lexicons/{lid}/rules", json=add)
        assert r.status_code == 200 and r.json()["version"] == 2 and r.json()["count"] == 1
        assert c.get(f"/v1/lexicons/{lid}").json()["rules"][0]["kind"] == "pinyin"
        add["rules"][0]["value"] = "chan2"  # the same word and kind: replaced
        assert c.post(f"/v1/lexicons/{lid}/rules", json=add).json()["count"] == 1
        assert c.get(f"/v1/lexicons/{lid}").json()["rules"][0]["value"] == "chan2"
        assert c.delete(f"/v1/lexicons/{lid}").json()["result"] == "deleted"
        assert c.get(f"/v1/lexicons/{lid}").status_code == 404


def test_the_limits_are_named(fleet: Fleet, monkeypatch: Any) -> None:
    from service.jobs import lexicons

    monkeypatch.setattr(lexicons, "MAX_DICTIONARIES", 2)
    with fleet.client() as c:
        for _ in range(2):
            assert c.post("/v1/lexicons", json={"name": "a", "rules": []}).status_code == 201
        r = c.post("/v1/lexicons", json={"name": "a", "rules": []})
        assert r.status_code == 422 and "at most 2 dictionaries" in json.dumps(r.json()), r.text
        many = [{"grapheme": f"w{i}", "kind": "alias", "value": "x"} for i in range(5001)]
        r = c.put("/v1/lexicons/whatever", json={"name": "a", "rules": many})
        assert r.status_code == 422 and "5000" in r.text, r.text
        lid = c.get("/v1/lexicons").json()[0]["id"]
        assert c.put(f"/v1/lexicons/{lid}", json={"name": "a", "rules": many[:5000]}).is_success
        r = c.post(f"/v1/lexicons/{lid}/rules", json={"rules": [{"grapheme": "单", "value": "x"}]})
        assert r.status_code == 422 and "5001 rules, over the limit of 5000" in r.text, r.text


def test_a_preset_names_dictionaries_as_a_job_does(fleet: Fleet) -> None:
    with fleet.client() as c:
        lid = _import(c).json()["id"]
        assert c.put("/v1/presets/ours", json={"lexicons": [lid]}).status_code == 200
        said, job = _spoken(fleet, c, {"preset": "ours"})
        assert said.split()[0] == "shan4", said
        record = fleet.store.get(job["id"])
        assert record is not None
        assert record.submitted.model_dump(mode="json")["lexicons"] == [{"id": lid, "version": 1}]


def test_a_batchs_shared_options_name_a_dictionary_for_every_item(fleet: Fleet) -> None:
    with fleet.client() as c:
        lid = _import(c).json()["id"]
        items = [{"name": n, "spec": {**SPEC, "title": n}} for n in ("one", "two")]
        body = {"items": items, "options": {"engine": "espeak", "lexicons": [lid]}}
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 202, r.text
        fleet.work()
        done = c.get(f"/v1/batches/{r.json()['id']}").json()
        assert done["status"] == "succeeded", done
        for item in done["items"]:
            job = c.get(f"/v1/jobs/{item['job']}").json()
            manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
            assert manifest["segments"][0]["spoken_text"].split()[0] == "shan4"
        body["options"] = {"lexicons": ["0" * 32]}
        r = c.post("/v1/batches", json=body)
        assert r.status_code == 422 and r.json()["detail"][0]["code"] == "lexicon.unknown"

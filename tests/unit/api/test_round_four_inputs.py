"""Inputs of the fourth hostile probe that got a 500, or were taken when they should not
be, in-process: each is now a 4xx naming its field, and nothing is kept."""

from __future__ import annotations

import json
import unicodedata

import pytest

from tests.support.fleet import Fleet

SPEC = {"title": "t", "language": "en", "segments": [{"text": "Hello.", "seconds": 1}]}


def _batch(fleet: Fleet, names: list[str]) -> tuple[int, str]:
    body = {"items": [{"name": n, "spec": SPEC} for n in names]}
    # written by hand: a lone surrogate is no UTF-8, json.dumps escapes it as the probe sent it
    raw = json.dumps(body).encode()
    with fleet.client() as c:
        r = c.post("/v1/batches", content=raw, headers={"content-type": "application/json"})
        return r.status_code, r.text


def test_the_three_500s_are_4xx_naming_the_field(fleet: Fleet) -> None:
    fleet_hooks = {"url": "http://127.0.0.1:1:80/", "events": ["job.failed"]}
    with fleet.client() as c:
        r = c.post("/v1/webhooks", json=fleet_hooks)
        assert r.status_code == 422 and "port" in r.text, r.text
        for path in ("/v1/jobs", "/v1/batches"):
            r = c.get(path, params={"cursor": "\u00b2"})
            assert r.status_code == 422 and "cursor" in r.text, (path, r.text)
    status, text = _batch(fleet, ["a\ud800"])
    assert status == 422 and '"name"' in text and "\\\\ud800" in text, text
    with fleet.client() as c:
        assert c.get("/v1/batches").json()["batches"] == []


@pytest.mark.parametrize(
    "names",
    [
        ["Intro", "intro"],  # one folder on a case-insensitive disk
        [unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")],
        ["intro", "ｉｎｔｒｏ"],  # full-width twins
        ["evil\u202egpj.exe"],  # RLO: shows another name than it is
        ["a\u2215b"],  # a division slash: looks like a folder
        ["x\uff0e\uff0e\uff0fy"],  # full-width dots and slash
    ],
)
def test_batch_item_names_that_collide_unzipped_or_look_like_others_are_refused(
    fleet: Fleet, names: list[str]
) -> None:
    status, text = _batch(fleet, names)
    assert status == 422, text
    with fleet.client() as c:
        assert c.get("/v1/batches").json()["batches"] == []


def test_a_405_names_every_method_the_path_has(fleet: Fleet) -> None:
    """GET and POST /v1/jobs are two routes: the 405 named only the first one's method."""
    with fleet.client() as c:
        for method, path, allowed in [
            ("PUT", "/v1/jobs", {"GET", "POST"}),
            ("PATCH", "/v1/jobs/abc", {"GET", "DELETE"}),
            ("PUT", "/v1/batches", {"GET", "POST"}),
            ("POST", "/healthz", {"GET"}),
        ]:
            r = c.request(method, path)
            assert r.status_code == 405, (method, path)
            got = {m.strip() for m in r.headers["allow"].split(",")}
            assert allowed <= got and got <= allowed | {"HEAD"}, (path, got)


def test_the_openapi_document_lists_the_400_and_413_every_operation_can_answer(
    fleet: Fleet,
) -> None:
    """The body limit (413) and a body or head the server cannot parse (400) apply to every
    operation; schemathesis saw both answered and undocumented."""
    with fleet.client() as c:
        doc = c.get("/openapi.json").json()
    missing = [
        f"{method.upper()} {path}: {code}"
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
        for code in ("400", "413")
        if code not in op["responses"]
    ]
    assert missing == []


def test_every_operation_has_an_operation_id_of_its_own(fleet: Fleet) -> None:
    """GET and HEAD of an artifact were one route of two methods: both took one id, from
    whichever method a set yielded first, so the document changed with the hash seed."""
    with fleet.client() as c:
        doc = c.get("/openapi.json").json()
        r = c.put("/v1/jobs/abc/artifacts/narration.wav")
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    artifact = doc["paths"]["/v1/jobs/{job_id}/artifacts/{name}"]
    assert list(artifact) == ["get", "head"]
    assert artifact["head"]["operationId"].endswith("_head")
    assert r.status_code == 405 and {m.strip() for m in r.headers["allow"].split(",")} == {
        "GET",
        "HEAD",
    }

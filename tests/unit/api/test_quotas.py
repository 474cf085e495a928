"""Quotas per tenant at the door, in-process: submissions a minute, queued and running jobs
(the settings, or the tenant's key's own); past one a 429 with Retry-After naming the limit,
its value and the use, and nothing kept. Other tenants are not affected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.jobs.keys import KeyStore
from tests.support.fleet import Fleet, make_fleet
from tests.support.jobs import to

SPEC: dict[str, Any] = {
    "title": "quota",
    "language": "zh",
    "segments": [{"text": "评分员排序。", "seconds": 1}],
    "options": {"engine": "espeak"},
}


def keyed_fleet(tmp: Path, **settings: Any) -> tuple[Fleet, KeyStore]:
    f = make_fleet(tmp, require_keys=True, **settings)
    return f, f.keys


def test_submissions_past_the_per_minute_limit_get_429_with_retry_after(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path, submissions_per_minute=3)
    alpha, beta = keys.create("alpha"), keys.create("beta")
    with f.client(alpha) as a, f.client(beta) as b:
        assert [a.post("/v1/jobs", json=SPEC).status_code for _ in range(3)] == [202] * 3
        r = a.post("/v1/jobs", json=SPEC)
        assert r.status_code == 429, r.text
        detail = r.json()["detail"]
        assert "tenant alpha" in detail and "3 submissions" in detail
        assert "NARRATE_SUBMISSIONS_PER_MINUTE" in detail and "--per-minute" in detail
        assert 1 <= int(r.headers["Retry-After"]) <= 20  # a token every 20 s at 3 a minute
        assert len(a.get("/v1/jobs").json()["jobs"]) == 3  # the refused one was not kept
        assert b.post("/v1/jobs", json=SPEC).status_code == 202  # beta has its own bucket


def test_a_keys_max_queued_refuses_past_it_until_a_job_starts(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path)
    gamma, beta = keys.create("gamma", {"max_queued": 2}), keys.create("beta")
    with f.client(gamma) as g, f.client(beta) as b:
        assert [g.post("/v1/jobs", json=SPEC).status_code for _ in range(2)] == [202, 202]
        r = g.post("/v1/jobs", json=SPEC)
        assert r.status_code == 429 and r.headers["Retry-After"] == "5"
        assert r.json()["detail"] == (
            "tenant gamma has 2 jobs queued, the limit (NARRATE_MAX_QUEUED_JOBS or the key's "
            "--max-queued) is 2; try again when one has started"
        )
        assert [b.post("/v1/jobs", json=SPEC).status_code for _ in range(3)] == [202] * 3
        f.work()  # gamma's jobs run and finish
        assert g.post("/v1/jobs", json=SPEC).status_code == 202


def test_max_running_refuses_while_the_tenant_has_that_many_running(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path, max_running_jobs=1)
    alpha = keys.create("alpha")
    with f.client(alpha) as a:
        first = a.post("/v1/jobs", json=SPEC).json()["id"]
        assert f.store.advance(first, to("running"))  # a worker took it
        r = a.post("/v1/jobs", json=SPEC)
        assert r.status_code == 429 and r.headers["Retry-After"] == "5"
        assert "tenant alpha has 1 jobs running" in r.json()["detail"]
        assert "NARRATE_MAX_RUNNING_JOBS or the key's --max-running) is 1" in r.json()["detail"]
        assert f.store.advance(first, to("succeeded"))
        assert a.post("/v1/jobs", json=SPEC).status_code == 202


def test_a_batch_counts_its_items_against_max_queued(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path, max_queued_jobs=3)
    alpha = keys.create("alpha")
    spec = {k: v for k, v in SPEC.items() if k != "options"}
    three = [{"name": f"n{i}", "spec": spec} for i in range(3)]
    with f.client(alpha) as a:
        assert a.post("/v1/jobs", json=SPEC).status_code == 202
        r = a.post("/v1/batches", json={"items": three, "options": {"engine": "espeak"}})
        assert r.status_code == 429, r.text
        assert "1 jobs queued, and this submission adds 3" in r.json()["detail"]
        assert a.get("/v1/batches").json()["batches"] == []
        assert len(a.get("/v1/jobs").json()["jobs"]) == 1
        r = a.post("/v1/batches", json={"items": three[:2], "options": {"engine": "espeak"}})
        assert r.status_code in (201, 202), r.text


def test_a_keys_max_batch_items_refuses_a_larger_batch_naming_the_limit(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path, batch_max_items=3)
    small, big = keys.create("small", {"max_batch_items": 2}), keys.create("big")
    roomy = keys.create("roomy", {"max_batch_items": 5})  # a key may raise the default too
    spec = {k: v for k, v in SPEC.items() if k != "options"}
    body = {"items": [{"name": f"n{i}", "spec": spec} for i in range(3)]}
    four = {"items": [{"name": f"n{i}", "spec": spec} for i in range(4)]}
    with f.client(small) as s, f.client(big) as b, f.client(roomy) as r:
        refused = s.post("/v1/batches", json=body)
        assert refused.status_code == 422, refused.text
        problem = refused.json()["detail"][0]
        assert problem["loc"] == ["items"]
        assert problem["msg"] == (
            "the batch has 3 items, over tenant small's limit of 2 "
            "(batch_max_items: NARRATE_BATCH_MAX_ITEMS or the key's --max-batch-items)"
        )
        assert (
            s.get("/v1/jobs").json()["jobs"] == [] and s.get("/v1/batches").json()["batches"] == []
        )
        assert b.post("/v1/batches", json=body).status_code == 202  # the setting's 3
        over = b.post("/v1/batches", json=four)
        assert over.status_code == 422 and "tenant big's limit of 3" in over.text
        assert r.post("/v1/batches", json=four).status_code == 202


def test_metrics_show_each_tenants_queued_and_running_jobs(tmp_path: Path) -> None:
    f, keys = keyed_fleet(tmp_path, metrics_token="scrape")
    alpha, beta = keys.create("alpha"), keys.create("beta")
    with f.client(alpha) as a, f.client(beta) as b:
        first = a.post("/v1/jobs", json=SPEC).json()["id"]
        a.post("/v1/jobs", json=SPEC)
        b.post("/v1/jobs", json=SPEC)
        assert f.store.advance(first, to("running"))
        text = f.client("scrape").get("/metrics").text
    assert 'narrate_tenant_jobs{state="queued",tenant="alpha"} 1.0' in text
    assert 'narrate_tenant_jobs{state="running",tenant="alpha"} 1.0' in text
    assert 'narrate_tenant_jobs{state="queued",tenant="beta"} 1.0' in text

"""Canceling a batch (DELETE /v1/batches/{id}) in-process: it cancels, it never deletes. An
item that ends while the cancel walks the batch (read unfinished, ended by the time its
cancel is written: its cancel refused) keeps its job and artifacts; and the walk reads each
item a bounded number of times (it read every item again for each one it canceled)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from service.domain.job import Job, JobStatus
from tests.support.fleet import Fleet, make_fleet


def _items(n: int) -> dict[str, object]:
    spec = {"title": "t", "language": "en", "segments": [{"text": "Hello.", "seconds": 1}]}
    return {"items": [{"name": f"item{i}", "spec": spec} for i in range(n)]}


def test_items_that_end_while_the_cancel_runs_keep_their_jobs_and_artifacts(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = fleet.store
    with fleet.client() as c:
        batch = c.post("/v1/batches", json=_items(3)).json()
        fleet.work()  # every item renders and ends ...
        real = store.get_many

        def read_before_they_ended(ids: Sequence[str]) -> list[Job | None]:
            # ... just after the cancel read them (unfinished): its cancels are refused
            return [j and dataclasses.replace(j, status=JobStatus.RUNNING) for j in real(ids)]

        with monkeypatch.context() as m:
            m.setattr(store, "get_many", read_before_they_ended)
            r = c.delete(f"/v1/batches/{batch['id']}")
        assert r.status_code == 200 and r.json()["canceled"] == 0
        for item in batch["items"]:
            job = c.get(f"/v1/jobs/{item['job']}")
            assert job.status_code == 200 and job.json()["status"] == "succeeded"
            for url in job.json()["links"]["artifacts"].values():
                assert c.get(url).status_code == 200
        assert c.get(f"/v1/batches/{batch['id']}").json()["counts"]["succeeded"] == 3


def test_a_batch_cancel_reads_each_item_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 40
    fleet = make_fleet(tmp_path, batch_max_items=n)
    store = fleet.store
    reads = {"jobs": 0}
    get, get_many = store.get, store.get_many

    def one(job_id: str) -> Job | None:
        reads["jobs"] += 1
        return get(job_id)

    def many(ids: Sequence[str]) -> list[Job | None]:
        reads["jobs"] += len(ids)
        return get_many(ids)

    with fleet.client() as c:
        batch = c.post("/v1/batches", json=_items(n)).json()
        monkeypatch.setattr(store, "get", one)
        monkeypatch.setattr(store, "get_many", many)
        r = c.delete(f"/v1/batches/{batch['id']}")
        assert r.json()["canceled"] == n
        assert reads["jobs"] <= 3 * n, f"{reads['jobs']} job reads to cancel {n} items"
        assert c.get(f"/v1/batches/{batch['id']}").json()["status"] == "canceled"

"""Webhooks through the API, in-process, on the in-memory outbox, sent over real HTTP to a
receiver on loopback (devtools/receiver.py) that fails the first two tries of each message:
endpoints registered, listed and deleted per tenant with the secret shown once; every end of
a job delivered, signed (checked with the `standardwebhooks` package), each try recorded with
the same webhook-id; URLs reaching private addresses refused at registration and submission."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import Webhook

from devtools.receiver import Receiver
from service.jobs.webhooks import Webhooks
from tests.support.fleet import Fleet, make_fleet

SPEC: dict[str, Any] = {
    "title": "hooks",
    "language": "en",
    "segments": [{"text": "Hello there.", "seconds": 2}],
}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(fail_first=2).start()
    yield r
    r.stop()


def _hooks(fleet: Fleet) -> Webhooks:
    assert fleet.service.webhooks is not None
    return fleet.service.webhooks


def _send_all(fleet: Fleet, rounds: int = 10) -> None:
    """Run the sender with its clock moved past every backoff (no waiting for real)."""
    hooks = _hooks(fleet)
    start = hooks.clock()
    for i in range(rounds):
        hooks.clock = lambda i=i: start + i  # type: ignore[misc]
        hooks.send_due()


def test_a_tenant_registers_lists_and_deletes_endpoints_and_sees_a_secret_once(
    tmp_path: Path,
) -> None:

    fleet = make_fleet(tmp_path, require_keys=True, webhook_allow_private=True)
    keys = fleet.keys
    with fleet.client(keys.create("alpha")) as a, fleet.client(keys.create("beta")) as b:
        r = a.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/x", "events": ["job.failed"]})
        assert r.status_code == 201, r.text
        made = r.json()
        assert made["secret"].startswith("whsec_") and made["events"] == ["job.failed"]
        listed = a.get("/v1/webhooks").json()
        assert [e["id"] for e in listed] == [made["id"]] and listed[0]["secret"] is None
        assert b.get("/v1/webhooks").json() == []
        assert b.delete(f"/v1/webhooks/{made['id']}").status_code == 404
        r = a.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "events": ["job.done"]})
        assert r.status_code == 422 and "job.done" in r.text
        assert a.delete(f"/v1/webhooks/{made['id']}").status_code == 200
        assert a.get("/v1/webhooks").json() == []


def test_every_end_of_a_job_is_delivered_signed_through_failures_each_try_recorded(
    tmp_path: Path, receiver: Receiver
) -> None:
    fleet = make_fleet(tmp_path, webhook_allow_private=True, webhook_backoff=0.1)
    with fleet.client() as c:
        events = ["job.succeeded", "job.failed", "job.canceled", "job.progress"]
        secret = c.post("/v1/webhooks", json={"url": receiver.url, "events": events}).json()
        own = SPEC | {"options": {"webhook_url": receiver.url + "?job=own"}}
        r = c.post("/v1/jobs", json=own)
        assert r.status_code == 422 and "POST /v1/webhooks/secret" in r.text
        default = c.post("/v1/webhooks/secret").json()["secret"]
        done, own_job = (c.post("/v1/jobs", json=body).json()["id"] for body in (SPEC, own))
        fleet.work()
        canceled, failed = (c.post("/v1/jobs", json=SPEC).json()["id"] for _ in range(2))
        assert c.delete(f"/v1/jobs/{canceled}").status_code == 200
        fleet.steps.timed_out(failed, "finalize")
        assert c.get(f"/v1/jobs/{failed}").json()["status"] == "failed"
        _send_all(fleet)

        got = receiver.delivered()
        by_job = {(json.loads(r.body)["data"]["job_id"], json.loads(r.body)["type"]): r
                  for r in got.values() if not r.headers["webhook-id"].endswith("_job")}  # fmt: skip
        assert set(by_job) == {
            (done, "job.succeeded"), (own_job, "job.succeeded"), (canceled, "job.canceled"),
            (failed, "job.failed"), (done, "job.progress"), (own_job, "job.progress"),
        }  # fmt: skip
        # Progress once per stage (synthesize, finalize); the job's own URL: its end only.
        assert len(got) == 9 and f"msg_{done}_job_progress_finalize_" in " ".join(got)
        mine = [m for m in got if m.endswith("_job")]
        assert mine == [f"msg_{own_job}_job_succeeded_job"]
        for msg_id, req in got.items():
            key = default if msg_id in mine else secret["secret"]
            assert Webhook(key).verify(req.body, req.headers)["data"]["job_id"] in msg_id
            assert receiver.tries[msg_id] == 3  # two 500s, then the 2xx that ended it
        assert got[mine[0]].path == "/hook?job=own"
        ok = json.loads(by_job[(done, "job.succeeded")].body)["data"]
        assert ok["status"] == "succeeded" and ok["error"] is None
        assert set(ok["artifacts"]) == set(c.get(f"/v1/jobs/{done}").json()["artifacts"])
        assert ok["artifacts"]["manifest.json"].endswith(f"/v1/jobs/{done}/artifacts/manifest.json")
        bad = json.loads(by_job[(failed, "job.failed")].body)["data"]
        assert bad["error"]["code"] == "timeout" and "timed out" in bad["error"]["message"]
        data = json.loads(by_job[(canceled, "job.canceled")].body)["data"]
        assert data["error"]["code"] == "canceled"

        tries = c.get(f"/v1/jobs/{done}/deliveries").json()
        ends = [t for t in tries if t["event"] == "job.succeeded"]
        assert [t["http_status"] for t in ends] == [500, 500, 204]
        assert len({t["webhook_id"] for t in ends}) == 1
        assert ends[0]["next_try"] > ends[0]["time"] and ends[-1]["next_try"] is None
        assert ends[0]["error"] == "HTTP 500" and ends[-1]["error"] is None
    assert _hooks(fleet).outbox.pending() == 0


def test_urls_reaching_private_addresses_are_refused_at_registration_and_submission(
    fleet: Fleet,
) -> None:
    with fleet.client() as c:
        for url in ("http://127.0.0.1:8000/x", "http://localhost/x", "http://169.254.169.254/",
                    "http://[::1]/x", "http://10.0.0.7/hook", "gopher://example.com/"):  # fmt: skip
            r = c.post("/v1/webhooks", json={"url": url})
            assert r.status_code == 422, (url, r.text)
        assert "not a public address" in c.post("/v1/webhooks", json={"url": "http://[::1]/"}).text
        c.post("/v1/webhooks/secret")
        r = c.post("/v1/jobs", json=SPEC | {"options": {"webhook_url": "http://127.0.0.1/"}})
        assert r.status_code == 422 and "not a public address" in r.text
        assert c.get("/v1/webhooks").json() == [] and fleet.queue.pending == []


def test_a_step_redelivered_after_its_worker_died_past_the_jobs_end_still_sends_the_event(
    tmp_path: Path, receiver: Receiver
) -> None:
    fleet = make_fleet(tmp_path, webhook_allow_private=True, webhook_backoff=0.1)
    with fleet.client() as c:
        secret = c.post("/v1/webhooks", json={"url": receiver.url}).json()["secret"]
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        hooks = fleet.steps.lifecycle.webhooks
        fleet.steps.lifecycle.webhooks = None  # the worker dies after the status write...
        fleet.work()
        assert c.get(f"/v1/jobs/{job_id}").json()["status"] == "succeeded"
        fleet.steps.lifecycle.webhooks = hooks
        _send_all(fleet)
        assert receiver.delivered() == {}
        fleet.steps.run_finalize(job_id, "worker2")  # ...and its unacked task comes back
        fleet.steps.run_finalize(job_id, "worker3")  # (twice: still one event)
        _send_all(fleet)
        (req,) = receiver.delivered().values()
        assert Webhook(secret).verify(req.body, req.headers)["data"]["job_id"] == job_id


def test_an_outbox_unreachable_at_a_jobs_end_hands_the_step_back_and_its_rerun_sends(
    tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.domain.errors import StoreUnavailable

    fleet = make_fleet(tmp_path, webhook_allow_private=True, webhook_backoff=0.1)
    with fleet.client() as c:
        c.post("/v1/webhooks", json={"url": receiver.url})
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        hooks = _hooks(fleet)
        enqueue = hooks.outbox.enqueue

        def down(*args: Any) -> bool:
            raise StoreUnavailable("the job store is unavailable (TimeoutError)")

        monkeypatch.setattr(hooks.outbox, "enqueue", down)
        with pytest.raises(StoreUnavailable):  # the Celery task rejects it back to the queue
            fleet.work()
        assert c.get(f"/v1/jobs/{job_id}").json()["status"] == "succeeded"
        monkeypatch.setattr(hooks.outbox, "enqueue", enqueue)
        fleet.steps.run_finalize(job_id, "worker2")  # the redelivery
        _send_all(fleet)
        (req,) = receiver.delivered().values()
        assert json.loads(req.body)["data"]["job_id"] == job_id

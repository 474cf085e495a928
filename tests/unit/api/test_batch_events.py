"""GET /v1/batches/{id}/events and the batch.completed webhook, in-process: each item's
start, stages and end on the batch's stream, then ``completed`` with the counts, once;
Last-Event-ID resumes after an id; the webhook goes to the endpoints that asked for it and to
the items' own webhook_url, once per batch, signed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from standardwebhooks import Webhook

from devtools.receiver import Receiver
from service.cli.wire import BatchState
from tests.support.fleet import Fleet, make_fleet
from tests.unit.api.test_events import parse_sse


def item(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "spec": {"title": name, "language": "zh", "segments": [{"text": "排序。", "seconds": 1}]},
    }


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


def test_a_batchs_events_follow_its_items_to_completed_once_and_resume(fleet: Fleet) -> None:
    body = {"items": [item("one"), item("two"), item("three")], "options": {"engine": "espeak"}}
    with fleet.client() as c:
        batch = c.post("/v1/batches", json=body).json()
        jobs = {i["name"]: i["job"] for i in batch["items"]}
        assert c.delete(f"/v1/jobs/{jobs['three']}").status_code == 200  # canceled
        fleet.work()
        fleet.steps.run_finalize(jobs["one"], "again")  # a redelivered step: no second end
        r = c.get(f"/v1/batches/{batch['id']}/events")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(r.text)
        assert events[0][1] == "snapshot" and events[0][2]["status"] == "canceled"
        ends = [
            (e[2]["job"], e[2]["status"]) for e in events if e[1] == "item" and "stage" not in e[2]
        ]
        assert ends == [
            (jobs["three"], "canceled"),
            (jobs["one"], "succeeded"),
            (jobs["two"], "succeeded"),
        ]
        stages = {(e[2]["job"], e[2]["stage"]) for e in events if "stage" in e[2]}
        assert stages == {(jobs[n], s) for n in ("one", "two") for s in ("synthesize", "finalize")}
        assert events[-1][1] == "completed"
        stored = fleet.service.batch_events(batch["id"])  # the stream closes at the first one
        assert [e.event for e in stored].count("completed") == 1
        done = events[-1][2]
        assert done["counts"] == {"succeeded": 2, "canceled": 1, "total": 3}
        assert [i["status"] for i in done["items"]] == ["succeeded", "succeeded", "canceled"]
        ids = [e[0] for e in events[1:]]
        again = parse_sse(
            c.get(f"/v1/batches/{batch['id']}/events", headers={"Last-Event-ID": str(ids[2])}).text
        )
        assert [e[0] for e in again[1:]] == ids[3:]


def test_another_tenants_batch_has_no_events(keyed: tuple[Fleet, str, str]) -> None:
    fleet, alpha, beta = keyed
    body = {"items": [item("one")], "options": {"engine": "espeak"}}
    batch = fleet.client(alpha).post("/v1/batches", json=body).json()
    assert fleet.client(beta).get(f"/v1/batches/{batch['id']}/events").status_code == 404


def test_batch_completed_is_sent_once_with_counts_to_who_asked(
    tmp_path: Path, receiver: Receiver
) -> None:
    fleet = make_fleet(tmp_path, webhook_allow_private=True)
    with fleet.client() as c:
        wanted = c.post("/v1/webhooks", json={"url": receiver.url, "events": ["batch.completed"]})
        c.post("/v1/webhooks", json={"url": receiver.url + "?ends", "events": ["job.failed"]})
        default = c.post("/v1/webhooks/secret").json()["secret"]
        options = {"engine": "espeak", "webhook_url": receiver.url + "?own"}
        batch = c.post("/v1/batches", json={"items": [item("a"), item("b")], "options": options})
        batch_id = batch.json()["id"]
        fleet.work()
        assert fleet.service.webhooks is not None
        fleet.service.webhooks.send_due()
    got = {m: r for m, r in receiver.delivered().items() if "batch" in m}
    assert sorted(got) == [
        f"msg_{batch_id}_batch_completed_{wanted.json()['id']}",
        f"msg_{batch_id}_batch_completed_url0",
    ]
    for msg_id, req in got.items():
        key = default if msg_id.endswith("url0") else wanted.json()["secret"]
        body = Webhook(key).verify(req.body, req.headers)
        assert body["type"] == "batch.completed" and body["data"]["batch_id"] == batch_id
        assert body["data"]["counts"] == {"succeeded": 2, "total": 2}
        assert [i["name"] for i in body["data"]["items"]] == ["a", "b"]
    assert got[f"msg_{batch_id}_batch_completed_url0"].path == "/hook?own"


def test_a_batchs_deliveries_list_its_batch_completed_tries_for_its_tenant_only(
    tmp_path: Path,
) -> None:
    from tests.unit.api.test_webhooks import _send_all

    failing = Receiver(fail_first=1).start()
    fleet = make_fleet(tmp_path, webhook_allow_private=True, require_keys=True)
    keys = fleet.keys
    alpha, beta = fleet.client(keys.create("alpha")), fleet.client(keys.create("beta"))
    try:
        hook = {"url": failing.url, "events": ["batch.completed", "job.succeeded"]}
        endpoint = alpha.post("/v1/webhooks", json=hook).json()["id"]
        body = {"items": [item("a")], "options": {"engine": "espeak"}}
        batch = alpha.post("/v1/batches", json=body).json()
        assert alpha.get(f"/v1/batches/{batch['id']}/deliveries").json() == []
        fleet.work()
        _send_all(fleet)
    finally:
        failing.stop()
    tries = alpha.get(f"/v1/batches/{batch['id']}/deliveries").json()
    assert [(t["event"], t["http_status"]) for t in tries] == [
        ("batch.completed", 500),
        ("batch.completed", 204),
    ]
    assert {t["webhook_id"] for t in tries} == {f"msg_{batch['id']}_batch_completed_{endpoint}"}
    assert tries[0]["endpoint"] == endpoint and tries[0]["error"] == "HTTP 500"
    assert tries[0]["next_try"] > tries[0]["time"] and tries[1]["next_try"] is None
    job = batch["items"][0]["job"]  # the item's own event is the job's, not the batch's
    assert {t["event"] for t in alpha.get(f"/v1/jobs/{job}/deliveries").json()} == {"job.succeeded"}
    assert beta.get(f"/v1/batches/{batch['id']}/deliveries").status_code == 404


def _narrate_follows(fleet: Fleet, batch_id: str) -> tuple[BatchState, list[str], str]:
    """What `narrate batch` ends on, the paths it asked for and its (plain) lines."""
    import io

    from service.cli.batch import Table, _follow

    asked: list[str] = []
    out = io.StringIO()
    with fleet.client() as c:
        c.event_hooks["request"] = [lambda req: asked.append(req.url.path)]
        # TestClient is httpx2's Client (the mcp SDK installs httpx2): the same interface
        return (
            _follow(cast(httpx.Client, c), batch_id, Table(out)),
            asked,
            out.getvalue(),
        )


def test_narrate_batch_follows_the_batchs_stream_and_polls_when_it_is_refused(
    fleet: Fleet,
) -> None:
    body = {"items": [item("one"), item("two")], "options": {"engine": "espeak"}}
    with fleet.client() as c:
        batch_id = c.post("/v1/batches", json=body).json()["id"]
    fleet.work()
    state, asked, lines = _narrate_follows(fleet, batch_id)
    assert [i["status"] for i in state["items"]] == ["succeeded", "succeeded"]
    assert asked == [f"/v1/batches/{batch_id}/events", f"/v1/batches/{batch_id}"]
    assert [line.split()[:2] for line in lines.splitlines()] == [
        ["one", "succeeded"],
        ["two", "succeeded"],
    ]
    fleet.app.state.event_streams = fleet.settings.max_event_streams  # full: 503
    state, asked, _ = _narrate_follows(fleet, batch_id)
    assert state["counts"]["succeeded"] == 2
    assert asked == [f"/v1/batches/{batch_id}/events", f"/v1/batches/{batch_id}"]

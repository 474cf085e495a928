"""GET /v1/jobs/{id}/events in-process, on the in-memory event log: every change of a job
in order, the terminal status last, Last-Event-ID resuming after an id, tenants kept apart."""

from __future__ import annotations

import json
from typing import Any, cast

import httpx

from service.cli.client import follow
from service.cli.console import ProgressBar
from service.cli.wire import JobState
from tests.support.fleet import Fleet
from tests.unit.api.test_jobs import SPEC

Event = tuple[str | None, str, dict[str, Any]]


def parse_sse(text: str) -> list[Event]:
    """(id, event, data) of each event in a text/event-stream body; comments skipped."""
    out: list[Event] = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
        if "event" in fields:
            out.append((fields.get("id"), fields["event"], json.loads(fields["data"])))
    return out


def test_events_follow_a_job_to_its_end_and_resume_after_last_event_id(fleet: Fleet) -> None:
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
        fleet.work()
        r = c.get(f"/v1/jobs/{job_id}/events")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(r.text)
        assert events[0][1] == "snapshot" and events[0][2]["status"] == "succeeded"
        kinds = [e[1] for e in events[1:]]
        assert kinds[0] == "status" and events[1][2]["status"] == "running"
        assert events[-1][1] == "status" and events[-1][2]["status"] == "succeeded"
        assert {e[2]["index"] for e in events if e[1] == "segment"} == {1, 2}
        assert any(e[1] == "update" and "stage" in e[2] for e in events)
        ids = [e[0] for e in events[1:]]
        assert all(ids) and len(set(ids)) == len(ids)
        middle = len(ids) // 2
        resumes: list[dict[str, Any]] = [
            {"headers": {"Last-Event-ID": str(ids[middle])}},
            {"params": {"last_event_id": str(ids[middle])}},
        ]
        for resume in resumes:
            again = parse_sse(c.get(f"/v1/jobs/{job_id}/events", **resume).text)
            assert [e[0] for e in again[1:]] == ids[middle + 1 :]
        bad = c.get(f"/v1/jobs/{job_id}/events", headers={"Last-Event-ID": "yesterday"})
        assert bad.status_code == 422


def test_another_tenants_job_has_no_events(keyed: tuple[Fleet, str, str]) -> None:
    fleet, alpha, beta = keyed
    job_id = fleet.client(alpha).post("/v1/jobs", json=SPEC).json()["id"]
    assert fleet.client(beta).get(f"/v1/jobs/{job_id}/events").status_code == 404
    assert fleet.client().get(f"/v1/jobs/{job_id}/events").status_code == 401


def _follow(fleet: Fleet, job_id: str) -> tuple[JobState, list[str]]:
    """What `narrate submit --wait` ends on, and the paths it asked for."""
    asked: list[str] = []
    with fleet.client() as c:
        c.event_hooks["request"] = [lambda req: asked.append(req.url.path)]
        # TestClient is httpx2's Client (the mcp SDK installs httpx2): the same interface
        return follow(cast(httpx.Client, c), job_id, ProgressBar()), asked


def test_submit_wait_follows_the_stream_and_polls_when_it_is_refused(fleet: Fleet) -> None:
    with fleet.client() as c:
        job_id = c.post("/v1/jobs", json=SPEC).json()["id"]
    fleet.work()
    state, asked = _follow(fleet, job_id)
    assert state["status"] == "succeeded" and asked[0] == f"/v1/jobs/{job_id}/events"
    fleet.app.state.event_streams = fleet.settings.max_event_streams  # full: 503
    with fleet.client() as c:
        full = c.get(f"/v1/jobs/{job_id}/events")
        assert full.status_code == 503 and full.headers["Retry-After"] == "5"
        assert "too many open event streams" in full.text
    state, asked = _follow(fleet, job_id)
    assert state["status"] == "succeeded" and asked[-1] == f"/v1/jobs/{job_id}"


def test_one_tenant_at_its_stream_limit_leaves_room_for_the_others(
    keyed: tuple[Fleet, str, str],
) -> None:
    """A tenant at NARRATE_MAX_EVENT_STREAMS_PER_TENANT gets 503 naming the limit; another
    tenant's stream opens; a stream that ended gives its room back."""
    fleet, alpha, beta = keyed
    ids = {}
    for name, key in (("alpha", alpha), ("beta", beta)):
        with fleet.client(key) as c:
            ids[name] = c.post("/v1/jobs", json=SPEC).json()["id"]
    fleet.work()
    with fleet.client(alpha) as a:
        assert a.get(f"/v1/jobs/{ids['alpha']}/events").status_code == 200
        assert fleet.app.state.tenant_streams["alpha"] == 0  # ended: its room given back
        fleet.app.state.tenant_streams["alpha"] = fleet.settings.max_event_streams_per_tenant
        full = a.get(f"/v1/jobs/{ids['alpha']}/events")
        assert full.status_code == 503 and full.headers["Retry-After"] == "5"
        assert "NARRATE_MAX_EVENT_STREAMS_PER_TENANT" in full.text and "alpha" in full.text
    with fleet.client(beta) as b:
        assert b.get(f"/v1/jobs/{ids['beta']}/events").status_code == 200

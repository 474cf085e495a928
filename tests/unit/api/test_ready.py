"""/readyz in-process: Redis, the workers and, with fair share, the dispatcher's lease. The
lease free for a moment (a dispatcher handing over) is a field, not a failure; nobody having
held it for over NARRATE_DISPATCH_DEAD_AFTER is unavailable (the lanes fill, nothing runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.ports import Fleet
from tests.support.fleet import make_fleet


def ready(tmp: Path, fleet: Fleet | None, **settings: Any) -> tuple[int, dict[str, Any]]:
    f = make_fleet(tmp, **settings)
    if fleet is not None:
        f.store.fleet = lambda dead_after: fleet  # type: ignore[method-assign]
    r = f.client().get("/readyz")
    return r.status_code, r.json()


def test_the_in_process_fleet_is_ready_with_its_dispatcher(tmp_path: Path) -> None:
    assert ready(tmp_path, None) == (
        200,
        {
            "status": "ok",
            "checks": {
                "redis": True,
                "workers": 1,
                "dispatcher": True,
                "dispatcher_seen": 0.0,
                "storage": True,
            },
        },
    )


@pytest.mark.parametrize(
    ("holder", "seen", "code"),
    [
        ("worker@a 1", 0.0, 200),  # held
        (None, 4.0, 200),  # between two holders: a field, not a failure
        (None, 29.9, 200),
        (None, 30.1, 503),  # nobody for longer than NARRATE_DISPATCH_DEAD_AFTER
        (None, None, 503),  # nobody ever: workers with NARRATE_DISPATCH_IN_WORKER=0, no dispatch
    ],
)
def test_a_dispatcher_gone_too_long_makes_it_unavailable(
    tmp_path: Path, holder: str | None, seen: float | None, code: int
) -> None:
    status, body = ready(tmp_path, Fleet(["w 1"], [], holder, seen), dispatch_dead_after=30)
    assert status == code
    assert body["checks"] == {
        "redis": True,
        "workers": 1,
        "dispatcher": holder is not None,
        "dispatcher_seen": seen,
        "storage": True,
    }
    assert body["status"] == ("ok" if code == 200 else "unavailable")


def test_without_fair_share_the_dispatcher_is_not_asked_about(tmp_path: Path) -> None:
    status, body = ready(tmp_path, Fleet(["w 1"], [], None, None), fair_share=False)
    assert (status, body["checks"]) == (200, {"redis": True, "workers": 1, "storage": True})
    status, body = ready(tmp_path, Fleet([], ["w 1"]), fair_share=False)
    assert (status, body["checks"]) == (503, {"redis": True, "workers": 0, "storage": True})


def test_a_worker_publishing_to_another_storage_makes_it_unavailable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Round four: a worker on local storage in another data dir (another machine) made
    artifacts this API answered 404 for. Every live worker must say the API's storage."""
    f = make_fleet(tmp_path, fair_share=False)
    mine = f.service.artifacts.identity()
    assert mine.startswith("local:") and mine == f.service.artifacts.identity()  # kept
    same = Fleet(["w 1", "w 2"], [], storages={"w 1": mine, "w 2": mine})
    f.store.fleet = lambda dead_after: same  # type: ignore[method-assign]
    assert f.client().get("/readyz").json()["checks"]["storage"] is True
    other = Fleet(["w 1", "w 2"], [], storages={"w 1": mine, "w 2": "local:0123abcd"})
    f.store.fleet = lambda dead_after: other  # type: ignore[method-assign]
    f.app.state.ready = None  # past the one-second cache
    r = f.client().get("/readyz")
    assert r.status_code == 503 and r.json()["checks"]["storage"] is False
    assert "w 2 publish artifacts where this API cannot serve them" in caplog.text
    assert "NARRATE_STORAGE_URL" in caplog.text

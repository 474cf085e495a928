"""Fair share in-process: jobs wait in their tenant's lane and the dispatcher fills the
queue in weighted round robin (the memory fleet runs the same Dispatcher as the workers, on
the memory lanes), a started job finishes before its tenant's next one starts, and a tenant
at its max-running gets no new job dispatched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service import wiring
from service.jobs.dispatch import Dispatcher
from service.ports import FINALIZE_TASK
from tests.support.fleet import Fleet, make_fleet

Ran = list[tuple[str, str, str]]  # (tenant, job, step) in the order the fleet ran them


def spec(segments: int) -> dict[str, Any]:
    return {
        "title": "fair",
        "language": "zh",
        "segments": [{"text": f"第{i}段。", "seconds": 1} for i in range(segments)],
        "options": {"engine": "espeak"},
    }


def submit(f: Fleet, key: str, jobs: int, segments: int = 1) -> list[str]:
    with f.client(key) as c:
        return [c.post("/v1/jobs", json=spec(segments)).json()["id"] for _ in range(jobs)]


def work(f: Fleet) -> Ran:
    ran: Ran = []
    run = wiring.run_task(f.steps)

    def record(name: str, args: list[Any]) -> None:
        job = f.store.get(args[0])
        assert job is not None
        ran.append((job.tenant, args[0], "finalize" if name == FINALIZE_TASK else f"s{args[1]}"))
        run(name, args)

    f.queue.drain(record)
    return ran


def keyed(
    tmp: Path, alpha: dict[str, int] | None = None, **settings: Any
) -> tuple[Fleet, str, str]:

    f = make_fleet(tmp, require_keys=True, **settings)
    keys = f.keys
    return f, keys.create("alpha", alpha), keys.create("beta")


def test_a_late_tenant_is_interleaved_not_queued_behind_a_backlog(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path)
    first = submit(f, alpha, 4, segments=2)
    (late,) = submit(f, beta, 1, segments=2)
    ran = work(f)
    assert [t for t, _, _ in ran[:6]] == ["alpha", "beta"] * 3
    assert [(j, s) for t, j, s in ran if t == "beta"] == [
        (late, "s0"),
        (late, "s1"),
        (late, "finalize"),
    ]
    # Each of alpha's jobs finishes before alpha's next one starts.
    assert [(j, s) for t, j, s in ran if t == "alpha"] == [
        (job, step) for job in first for step in ("s0", "s1", "finalize")
    ]
    with f.client(beta) as c:
        assert c.get(f"/v1/jobs/{late}").json()["status"] == "succeeded"


def test_without_fair_share_the_late_tenant_waits_for_the_whole_backlog(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path, fair_share=False)
    submit(f, alpha, 4, segments=2)
    submit(f, beta, 1, segments=2)
    ran = work(f)
    assert [t for t, _, s in ran if s != "finalize"] == ["alpha"] * 8 + ["beta"] * 2


def test_weights_share_the_fleet_three_to_one(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path, {"weight": 3})
    submit(f, alpha, 9)
    submit(f, beta, 3)
    ran = work(f)
    assert "".join(t[0] for t, _, _ in ran[:16]) == "aaabaaab" * 2  # both backlogged
    finished = [t for t, _, s in ran[:16] if s == "finalize"]
    assert (finished.count("alpha"), finished.count("beta")) == (6, 2)


def test_a_tenant_at_its_max_running_gets_no_new_job_dispatched(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path, {"max_running": 1}, dispatch_window=10)
    one, two = submit(f, alpha, 2, segments=2)
    (other,) = submit(f, beta, 1, segments=2)
    assert f.queue.refill is not None
    f.queue.refill()  # room for 10 tasks: all but alpha's second job's
    assert sorted((a[0], a[1]) for _, a in f.queue.pending) == sorted(
        [(one, 0), (one, 1), (other, 0), (other, 1)]
    )
    assert f.queue.waiting() == 6  # two's segments wait in alpha's lane
    ran = work(f)
    assert ran.index(("alpha", one, "finalize")) < ran.index(("alpha", two, "s0"))
    with f.client(alpha) as c:
        assert c.get(f"/v1/jobs/{two}").json()["status"] == "succeeded"


def test_a_dispatcher_taking_over_counts_the_jobs_its_predecessor_moved(tmp_path: Path) -> None:
    f, alpha, _ = keyed(tmp_path, {"max_running": 1}, dispatch_window=10)
    one, two = submit(f, alpha, 2)
    assert f.queue.refill is not None
    first = f.queue.refill.__self__  # type: ignore[attr-defined]
    assert first.tick() == 1  # one's segment, not yet started; two waits in alpha's lane
    # The lease passes to another dispatcher (the first one's worker died): it must count one
    # as starting, or alpha, at max-running 1, gets two dispatched beside it.
    taker = Dispatcher(f.settings, first.lanes, f.queue, f.store, first.limits, first.running)
    taker.adopt()
    assert taker.tick() == 0
    assert [a[0] for _, a in f.queue.pending] == [one]
    ran = work(f)
    assert ran.index(("alpha", one, "finalize")) < ran.index(("alpha", two, "s0"))


def test_metrics_show_each_tenants_lane_depth_and_wait_histogram(tmp_path: Path) -> None:
    f, alpha, beta = keyed(tmp_path, metrics_token="scrape")
    submit(f, alpha, 3, segments=2)
    submit(f, beta, 1)
    text = f.client("scrape").get("/metrics").text
    assert 'narrate_tenant_queue_depth{tenant="alpha"} 6.0' in text
    assert 'narrate_tenant_queue_depth{tenant="beta"} 1.0' in text
    work(f)
    text = f.client("scrape").get("/metrics").text
    assert 'narrate_tenant_wait_seconds_count{tenant="alpha"} 3.0' in text
    assert 'narrate_tenant_wait_seconds_count{tenant="beta"} 1.0' in text
    assert 'narrate_tenant_wait_seconds_bucket{le="3600",tenant="alpha"} 3.0' in text
    assert "narrate_tenant_queue_depth{" not in text  # the lanes are empty, and forgotten

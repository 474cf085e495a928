"""One contract, two sets of fleet figures (the Metrics and Counts ports, what /metrics reads):
the Redis ones (adapters/redis/metrics.py, on a redis-server of the test's own) and the
memory backend's. Histograms are read as /metrics reads them (service/api/routes/health.py): a
bucket a store does not keep counts 0."""

from __future__ import annotations

import pytest

from service.domain.job import STATES
from service.ports import BUCKETS, WAIT_BUCKETS, NewJob
from tests.contracts.jobstore import Q, Under, job, msg, open_under
from tests.support.jobs import to


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    return open_under(request)


def buckets(histogram: dict[str, float], bounds: tuple[float, ...]) -> list[float]:
    return [histogram.get(str(b), 0.0) for b in bounds]


def test_stage_times_are_cumulative_histograms_per_stage(under: Under) -> None:
    metrics = under.stores.metrics
    metrics.observe_stage("synthesize", 0.3)
    metrics.observe_stage("synthesize", 7.0)
    metrics.observe_stage("mux", 0.05)
    found = metrics.stage_histograms()
    assert set(found) == {"synthesize", "mux"}
    # BUCKETS: 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300
    assert buckets(found["synthesize"], BUCKETS) == [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2]
    assert found["synthesize"]["count"] == 2
    assert found["synthesize"]["sum"] == pytest.approx(7.3)
    assert buckets(found["mux"], BUCKETS) == [1] * len(BUCKETS)


def test_waits_are_histograms_per_tenant(under: Under) -> None:
    metrics = under.stores.metrics
    assert metrics.tenant_waits() == {}
    metrics.observe_wait("alpha", 2.0)
    metrics.observe_wait("beta", 400.0)
    found = metrics.tenant_waits()
    assert set(found) == {"alpha", "beta"}
    # WAIT_BUCKETS: 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600
    assert buckets(found["alpha"], WAIT_BUCKETS) == [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
    assert buckets(found["beta"], WAIT_BUCKETS) == [0] * 10 + [1, 1]
    assert found["beta"]["count"] == 1 and found["beta"]["sum"] == pytest.approx(400.0)


def test_tts_calls_add_up_per_engine(under: Under) -> None:
    metrics = under.stores.metrics
    metrics.count_tts("kokoro")
    metrics.count_tts("kokoro", 3)
    metrics.count_tts("espeak")
    assert metrics.tts_calls() == {"kokoro": 4, "espeak": 1}


def test_jobs_are_counted_by_state_and_tenant_as_they_move(under: Under) -> None:
    for job_id, tenant in (("a1", "alpha"), ("a2", "alpha"), ("b1", "beta")):
        under.records.create(NewJob(job(job_id, tenant), None, [msg(job_id, 0)], Q))
    under.transitions.advance("a1", to("running"))
    under.transitions.advance("b1", to("running"))
    under.transitions.advance("b1", to("succeeded"))
    counts = under.stores.counts
    assert counts.count_by_state() == {
        **dict.fromkeys(STATES, 0),
        "queued": 1,
        "running": 1,
        "succeeded": 1,
    }
    # Queued and running only, as the quotas count them (a store may keep a 0 it went back to).
    held = {k: n for k, n in counts.tenant_jobs().items() if n}
    assert held == {("alpha", "queued"): 1, ("alpha", "running"): 1}
    assert counts.queue_depth(Q) == 3  # each job's first message, none taken yet
    assert counts.in_flight() == {}  # no worker holds any


def test_a_backfill_counts_nothing_already_counted_live(under: Under) -> None:
    under.records.create(NewJob(job("a1")))
    counts = under.stores.counts
    before = counts.count_by_state()
    assert counts.backfill() == 0
    assert counts.backfill() == 0  # once per store
    assert counts.count_by_state() == before and before["queued"] == 1

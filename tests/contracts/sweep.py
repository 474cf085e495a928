"""One contract, two sweeps (the JobSweep port, the job store's side of retention,
service/jobs/retention.py): the Redis one (adapters/redis/job_sweep.py, on a redis-server of
the test's own) and the memory store's. Old jobs are found by their creation time, records by
id, and a job discarded whole leaves nothing behind to sweep."""

from __future__ import annotations

import pytest

from service.ports import NewJob
from tests.contracts.jobstore import Q, Under, job, msg, open_under


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    return open_under(request)


def test_the_jobs_created_before_the_cutoff_are_listed_with_their_tenant(under: Under) -> None:
    base = 1_700_000_000.0
    under.records.create(NewJob(job("a1", created=base)))
    under.records.create(NewJob(job("a2", created=base + 10)))
    under.records.create(NewJob(job("b1", "beta", created=base + 5)))
    assert sorted(under.stores.sweep.created_before(base + 6)) == [("alpha", "a1"), ("beta", "b1")]
    assert under.stores.sweep.created_before(base) == []  # strictly before


def test_existing_names_only_the_jobs_whose_record_is_there(under: Under) -> None:
    under.records.create(NewJob(job("a1")))
    made, _ = under.records.create(NewJob(job("a2")))
    under.records.discard(made)
    assert under.stores.sweep.existing(["a1", "a2", "never"]) == {"a1"}
    assert under.stores.sweep.existing([]) == set()


def test_a_job_discarded_whole_leaves_no_strays(under: Under) -> None:
    made, _ = under.records.create(NewJob(job("a1"), ("k", "body"), [msg("a1", 0)], Q))
    under.records.create(NewJob(job("a2")))
    under.ledger.segment_done("a2", 0)
    under.records.discard(made)
    assert under.stores.sweep.strays() == ([], [])
    under.stores.sweep.remove([], [])  # nothing to remove: nothing changes
    assert under.stores.sweep.existing(["a2"]) == {"a2"}

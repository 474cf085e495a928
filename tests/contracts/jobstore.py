"""One contract, two job stores: the Redis one (its Lua scripts, on a redis-server of the
test's own) and the in-memory one the fast tier runs the API on. Each rule a job's life leans
on is asserted against both, so the fast tier cannot drift from what production does."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from service.adapters.backend import open_stores
from service.adapters.memory.queue import MemoryQueue
from service.config import Settings
from service.domain.errors import IdempotencyConflict
from service.domain.job import Job, JobFilter, SegmentRecord
from service.domain.job_changes import JobUpdate, SegmentUpdate
from service.domain.notices import Notice, warning
from service.ports import (
    QUEUE,
    ActiveJobs,
    Deliveries,
    EventLog,
    JobRecords,
    JobTransitions,
    NewJob,
    QueueHeads,
    SegmentLedger,
)
from service.ports.stores import Stores
from tests.support.jobs import make_job, to

Q = QUEUE  # the broker's queue, as the backends name it


@dataclass
class Under:
    """The stores a backend opens (adapters/backend.py, as the wiring opens them): each test
    goes through the job store's role it is about."""

    stores: Stores
    queued: Callable[[], int]  # messages handed to the queue so far
    first: Callable[[], str]  # the message the next worker takes

    @property
    def records(self) -> JobRecords:
        return self.stores.records

    @property
    def transitions(self) -> JobTransitions:
        return self.stores.transitions

    @property
    def ledger(self) -> SegmentLedger:
        return self.stores.ledger

    @property
    def deliveries(self) -> Deliveries:
        return self.stores.deliveries

    @property
    def events(self) -> EventLog:
        return self.stores.events

    @property
    def active(self) -> ActiveJobs:
        return self.stores.active

    @property
    def heads(self) -> QueueHeads:
        return self.stores.heads


@pytest.fixture
def under(request: pytest.FixtureRequest) -> Under:
    return open_under(request)


def open_under(request: pytest.FixtureRequest) -> Under:
    """The backend's stores, fresh (the other role suites of the job store open theirs here
    too: tests/contracts/fleet.py, sweep.py, figures.py)."""
    if request.getfixturevalue("backend") == "memory":
        stores = open_stores(Settings(redis_url="memory://"))
        queue = stores.queue
        assert isinstance(queue, MemoryQueue)
        return Under(stores, lambda: len(queue.pending), lambda: json.dumps(queue.pending[0]))
    import redis

    url = request.getfixturevalue("redis_url")
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushdb()
    # kombu's Redis transport: LPUSH to publish, BRPOP to take.
    return Under(
        open_stores(Settings(redis_url=url, redis_timeout=2.0)),
        lambda: int(client.llen(Q)),
        lambda: str(client.lindex(Q, -1)),
    )


def msg(job_id: str, index: int) -> str:
    """A queue message as a queue's ``encode`` makes it (the Redis store pushes any string)."""
    return json.dumps(["narrate.segment", [job_id, index]])


def job(job_id: str, tenant: str = "alpha", created: float | None = None, **kw: Any) -> Job:
    return make_job(job_id, tenant, created, **kw)


def test_a_job_is_stored_with_its_tasks_in_one_step(under: Under) -> None:
    _, new = under.records.create(NewJob(job("a1"), None, [msg("a1", 0), msg("a1", 1)], Q))
    assert new and under.queued() == 2
    found = under.records.get("a1")
    assert found is not None and (found.status, found.title, found.tenant) == (
        "queued", "a1", "alpha",
    )  # fmt: skip
    assert found.plan == job("a1").plan  # the plan reads back whole, typed
    assert found.segments == {0: SegmentRecord(), 1: SegmentRecord()}
    assert under.active.active() == ["a1"] and under.records.status("a1") == "queued"
    assert under.records.get("nope") is None and under.records.status("nope") is None


def test_an_idempotency_key_maps_one_body_to_one_job(under: Under) -> None:
    under.records.create(NewJob(job("a1"), ("k", "body-1"), [msg("a1", 0)], Q))
    again, new = under.records.create(NewJob(job("a2"), ("k", "body-1"), [msg("a1", 0)], Q))
    assert not new and again.id == "a1" and under.queued() == 1
    with pytest.raises(IdempotencyConflict):
        under.records.create(NewJob(job("a3"), ("k", "body-2"), [msg("a1", 0)], Q))
    other_tenant, new = under.records.create(NewJob(job("b1", "beta"), ("k", "body-2"), [], Q))
    assert new and other_tenant.id == "b1"  # keys are per tenant


def test_status_only_moves_forward_and_never_out_of_a_terminal_state(under: Under) -> None:
    under.records.create(NewJob(job("a1")))
    assert under.transitions.advance("a1", to("running", stage="synthesize"))
    assert not under.transitions.advance("a1", to("queued"))
    assert under.transitions.advance("a1", to("succeeded", artifacts=["narration.wav"]))
    assert not under.transitions.advance("a1", to("failed", error="late"))
    found = under.records.get("a1")
    assert found is not None and found.status == "succeeded" and found.error is None
    assert found.artifacts == ["narration.wav"] and found.stage == "synthesize"
    assert under.active.active() == []
    assert not under.transitions.advance("gone", to("running"))


def test_each_segment_counts_once_and_only_the_last_reports_it(under: Under) -> None:
    under.records.create(NewJob(job("a1", n=3)))
    under.ledger.set_segment("a1", 1, SegmentUpdate(state="running", worker="w1"))
    under.ledger.set_segment("a1", 1, SegmentUpdate(state="done"))
    found = under.records.get("a1")
    assert found is not None and found.segments[1] == SegmentRecord("done", "w1")
    assert [under.ledger.segment_done("a1", i) for i in (1, 1, 0)] == [False, False, False]
    assert under.ledger.segment_done("a1", 2) and not under.ledger.segment_done("a1", 2)
    assert under.ledger.done_segments("a1") == {0, 1, 2}
    assert [under.deliveries.deliveries("a1", "segment:1") for _ in range(3)] == [1, 2, 3]
    assert (
        under.deliveries.delivered("a1", "segment:1") == 3
        and under.deliveries.delivered("a1", "x") == 0
    )


def test_pages_are_newest_first_filtered_and_continue_below_the_cursor(under: Under) -> None:
    base = 1_700_000_000.0
    for i in range(5):
        under.records.create(NewJob(job(f"a{i}", created=base + i)))
    under.records.create(NewJob(job("b0", "beta", created=base + 9)))
    under.transitions.advance("a3", to("running"))
    first, cursor = under.records.page("alpha", None, 2, None)
    assert [j.id for j in first] == ["a4", "a3"] and cursor is not None
    rest, _ = under.records.page("alpha", None, 10, cursor)
    assert [j.id for j in rest] == ["a2", "a1", "a0"]
    running, _ = under.records.page("alpha", "running", 10, None)
    assert [j.id for j in running] == ["a3"]


def test_many_jobs_are_read_at_once_in_the_order_asked(under: Under) -> None:
    for i in range(3):
        under.records.create(NewJob(job(f"a{i}", n=2)))
    under.ledger.set_segment("a1", 1, SegmentUpdate(state="done", engine="espeak"))
    assert under.transitions.advance("a2", to("running", stage="synthesize"))
    found = under.records.get_many(["a2", "gone", "a0", "a1", "a2"])
    assert [j.id if j else None for j in found] == ["a2", None, "a0", "a1", "a2"]
    assert found == [under.records.get(i) for i in ["a2", "gone", "a0", "a1", "a2"]]
    assert found[3] is not None and found[3].segments[1] == SegmentRecord("done", engine="espeak")
    assert found[0] is not None and found[0].status == "running" and found[0] is not found[4]
    assert under.records.get_many([]) == []


def test_pages_filter_by_batch_and_title_and_continue_with_the_filter(under: Under) -> None:
    base = 1_700_000_000.0
    for i in range(6):
        spec = {"title": f"{'Launch' if i % 2 else '发布会'} clip {i}"}
        under.records.create(
            NewJob(
                job(f"a{i}", created=base + i, title=spec["title"], batch="b1" if i < 4 else None)
            )
        )
    under.records.create(NewJob(job("b0", "beta", created=base + 9, batch="b1", title="launch")))
    under.transitions.advance("a1", to("running"))
    batch = [j.id for j in under.records.page("alpha", JobFilter(batch="b1"), 10, None)[0]]
    assert batch == ["a3", "a2", "a1", "a0"]  # never beta's job of the same batch id
    first, cursor = under.records.page("alpha", JobFilter(q="LAUNCH"), 2, None)
    assert [j.id for j in first] == ["a5", "a3"] and cursor is not None
    rest, _ = under.records.page("alpha", JobFilter(q="launch"), 2, cursor)
    assert [j.id for j in rest] == ["a1"]
    assert [j.id for j in under.records.page("alpha", JobFilter(q="发布"), 10, None)[0]] == [
        "a4", "a2", "a0"
    ]  # fmt: skip
    both = JobFilter(status="running", batch="b1", q="launch")
    assert [j.id for j in under.records.page("alpha", both, 10, None)[0]] == ["a1"]
    assert under.records.page("alpha", JobFilter(q="a4"), 10, None)[0][0].id == "a4"  # by id


def test_a_discarded_job_leaves_no_trace(under: Under) -> None:
    made, _ = under.records.create(NewJob(job("a1"), ("k", "body-1")))
    under.deliveries.deliveries("a1", "finalize")
    under.ledger.segment_done("a1", 0)
    under.records.discard(made)
    assert under.records.get("a1") is None and under.active.active() == []
    assert under.records.page("alpha", None, 10, None)[0] == []
    assert (
        under.deliveries.delivered("a1", "finalize") == 0
        and under.ledger.done_segments("a1") == set()
    )
    again, new = under.records.create(NewJob(job("a2"), ("k", "body-2")))
    assert new and again.id == "a2"  # the key went with its job


def test_every_change_is_an_event_in_order_and_goes_with_its_job(under: Under) -> None:
    made, _ = under.records.create(NewJob(job("a1")))
    assert under.transitions.advance("a1", to("running", stage="synthesize"))
    assert not under.transitions.advance("a1", to("queued"))  # no change: no event
    under.ledger.set_segment("a1", 0, SegmentUpdate(state="running", worker="w1"))
    under.transitions.update("a1", JobUpdate(stage="mix", stage_progress=0.5))
    under.ledger.set_segment("a1", 0, SegmentUpdate(state="done"))
    assert under.transitions.advance("a1", to("succeeded", artifacts=["narration.wav"]))
    events = under.events.events("a1")
    assert [(e.event, e.data) for e in events] == [
        ("status", {"status": "running", "stage": "synthesize"}),
        ("segment", {"state": "running", "worker": "w1", "index": 1}),
        ("update", {"stage": "mix", "stage_progress": 0.5}),
        ("segment", {"state": "done", "worker": "w1", "index": 1}),
        ("status", {"status": "succeeded", "artifacts": ["narration.wav"]}),
    ]
    assert [e.id for e in under.events.events("a1", events[1].id)] == [e.id for e in events[2:]]
    assert under.events.events("a1", events[-1].id) == []
    under.transitions.update("gone", JobUpdate(stage="mix"))  # a deleted job's change is no event
    assert under.events.events("gone") == []
    under.records.discard(made)
    assert under.events.events("a1") == []


def test_a_finalize_pushed_first_is_taken_before_the_backlog(under: Under) -> None:
    under.records.create(NewJob(job("a1"), None, [msg("a1", 0), msg("a1", 1)], Q))
    under.records.create(NewJob(job("a2"), None, [msg("a2", 0)], Q))
    assert json.loads(under.first()) == ["narrate.segment", ["a1", 0]]  # first in, first out
    finalize = json.dumps(["narrate.finalize", ["a1"]])
    under.heads.push_first(Q, finalize)
    assert under.queued() == 4 and under.first() == finalize


def test_errors_and_warnings_are_kept_as_notices(
    under: Under,
) -> None:
    """A job's error and warnings read back as notices (a record stored before they were
    typed: tests/unit/domain/test_job_records.py)."""
    under.records.create(
        NewJob(job("a1", warnings=[warning("pace.squeezed", "segment 2: squeezed", 2)]))
    )
    under.ledger.set_segment(
        "a1", 1, SegmentUpdate(warnings=[warning("text.unspoken", "segment 2: '☃'", 2)])
    )
    cause = Notice(code="engine.failed", message="segment 2: espeak: no audio", segment=2)
    assert under.transitions.advance("a1", to("failed", error=cause))
    found = under.records.get("a1")
    assert found is not None and found.error == cause
    assert found.warnings == [
        Notice(code="pace.squeezed", message="segment 2: squeezed", segment=2)
    ]
    assert found.segments[1].warnings == [
        Notice(code="text.unspoken", message="segment 2: '☃'", segment=2)
    ]


def test_an_event_id_past_what_a_stream_can_hold_reads_from_the_start(under: Under) -> None:
    """A Last-Event-ID past 2^64 - 1 (the probe's cut its stream: Redis refuses it)."""
    under.records.create(NewJob(job("a1")))
    assert under.transitions.advance("a1", to("running"))
    every = [e.id for e in under.events.events("a1")]
    assert every and [e.id for e in under.events.events("a1", "18446744073709551616-0")] == every
    top = f"{2**64 - 1}-{2**64 - 1}"
    assert under.events.events("a1", top) == []  # the largest id there is: nothing after it


def test_many_jobs_advance_at_once_each_as_alone(under: Under) -> None:
    """advance_many (a batch cancel's writes, pipelined on Redis): each job moves as its own
    advance would, a terminal one refused, an event for each that moved."""
    for i in range(3):
        under.records.create(NewJob(job(f"a{i}")))
    assert under.transitions.advance("a1", to("succeeded"))
    assert under.transitions.advance_many(["a0", "a1", "gone", "a2"], to("canceled")) == [
        True, False, False, True,
    ]  # fmt: skip
    assert [under.records.status(f"a{i}") for i in range(3)] == [
        "canceled",
        "succeeded",
        "canceled",
    ]
    assert [e.data for e in under.events.events("a0")] == [{"status": "canceled"}]
    assert under.transitions.advance_many([], to("canceled")) == []

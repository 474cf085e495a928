"""Concurrent batches against `--max-queued`: each batch's items are reserved at admission,
atomically, so 10 batches of 10 submitted at once against a limit of 10 queue 10 jobs, not
30 (the count was read at the door and the jobs stored after planning: every batch read 0).
Every submission is held in planning until all ten have been admitted or refused, so the
old read-then-store is seen to fail every time, not by chance."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from service.domain.errors import QuotaExceeded
from service.domain.options import RenderOptions
from service.domain.spec import spec_from_data
from service.jobs.batches import ItemRequest
from service.jobs.service import Submission
from tests.support.fleet import make_fleet

N = 10


def test_ten_batches_of_ten_at_once_queue_at_most_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fleet = make_fleet(tmp_path, max_queued_jobs=N)
    jobs = fleet.service
    batches = fleet.app.state.batches
    lock, decided, all_decided = threading.Lock(), [0], threading.Event()
    held: set[str] = set()

    def one_decided() -> None:
        with lock:
            decided[0] += 1
            if decided[0] == N:
                all_decided.set()

    real = jobs.prepare

    def prepare(ask: Submission) -> Any:
        batch = str(ask.batch)
        with lock:
            first = batch not in held
            held.add(batch)
        if first:
            one_decided()  # admitted
            assert all_decided.wait(30), "not every submission was decided"
        return real(ask)

    monkeypatch.setattr(jobs, "prepare", prepare)
    spec = spec_from_data({"segments": [{"text": "Hello.", "seconds": 1}], "language": "en"})
    outcomes: list[str] = []

    def submit(b: int) -> None:
        items = [
            ItemRequest(f"i{i}", f"j{b}x{i}", spec, RenderOptions(engine="espeak"))
            for i in range(N)
        ]
        try:
            batches.submit("alpha", f"b{b}", items)
            outcomes.append("accepted")
        except QuotaExceeded:
            outcomes.append("refused")
            one_decided()

    threads = [threading.Thread(target=submit, args=(b,)) for b in range(N)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["accepted"] + ["refused"] * (N - 1)
    queued = [
        j for j in jobs.store.records.page("alpha", None, 1000, None)[0] if j.status == "queued"
    ]
    assert len(queued) == N

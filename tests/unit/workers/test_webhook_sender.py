"""The workers' webhook sender thread (workers/webhooks.py) against real receivers on
loopback: one tenant's receiver dripping its answer a byte at a time must not hold another
tenant's deliveries, and a try cut at its deadline is never overlapped by a second try of
the same webhook-id from another worker's sender (the claim's lease outlives the try)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools.receiver import Receiver
from devtools.stack import until
from service import wiring
from service.adapters.http.webhooks import HttpSender
from service.adapters.memory.webhooks import MemoryWebhooks
from service.config import Settings
from service.domain.errors import StoreUnavailable
from service.jobs.webhooks import Webhooks
from service.ports.webhooks import Delivery
from tests.support.slow_receivers import Dripper
from workers.webhooks import Sender


@pytest.fixture
def drip() -> Iterator[Dripper]:
    d = Dripper().start()
    yield d
    d.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


def _hooks(tmp: Path, **settings: Any) -> Webhooks:
    conf = Settings(data_dir=tmp / "data", webhook_allow_private=True, **settings)
    sender = HttpSender(conf.webhook_timeout, allow_private=True)
    store = MemoryWebhooks()
    return Webhooks(conf, store, store, sender, wiring.storage(conf))


def _queue(hooks: Webhooks, tenant: str, url: str, n: int) -> list[str]:
    endpoint = hooks.register(tenant, url, ["job.succeeded"])
    now = hooks.clock()
    ids = [f"msg_{tenant}_{i}" for i in range(n)]
    for i, msg_id in enumerate(ids):
        job = f"job_{tenant}_{i}"
        body = '{"type": "job.succeeded"}'
        d = Delivery(msg_id, tenant, job, "job.succeeded", url, endpoint.id, body, now)
        hooks.outbox.enqueue(d, now)
    return ids


def _senders(hooks: Webhooks, n: int) -> list[Sender]:
    started = [Sender(hooks, poll=0.02) for _ in range(n)]
    for s in started:
        s.start()
    return started


def test_a_dripping_receiver_does_not_hold_another_tenants_deliveries(
    tmp_path: Path, drip: Dripper, receiver: Receiver
) -> None:
    hooks = _hooks(tmp_path, webhook_timeout=30, webhook_lease=40)
    _queue(hooks, "slow", drip.url, 1)
    (sender,) = _senders(hooks, 1)
    try:
        assert drip.reached.wait(20)
        ids = _queue(hooks, "other", receiver.url, 10)
        until(lambda: set(ids) <= set(receiver.delivered()), 20, "the other tenant's 10")
        # decided while the slow try is still open (its deadline is 30 s, the test holds it)
        assert sum(drip.open_now.values()) == 1 and not drip.ended
    finally:
        drip.released.set()
        sender.stop()


def test_a_try_past_its_deadline_is_never_overlapped_by_another_workers_try(
    tmp_path: Path, drip: Dripper
) -> None:
    hooks = _hooks(
        tmp_path, webhook_timeout=1, webhook_lease=2, webhook_backoff=0.5, webhook_backoff_max=0.5
    )
    (msg_id,) = _queue(hooks, "slow", drip.url, 1)
    senders = _senders(hooks, 2)  # two workers' senders on one outbox
    try:
        until(lambda: drip.tries[msg_id] >= 2, 40, "two tries of the slow delivery")
        assert drip.most_at_once[msg_id] == 1, "two tries of one webhook-id were in flight"
    finally:
        drip.released.set()
        for s in senders:
            s.stop()


class _Away:
    """A Webhooks whose outbox is unreachable until ``back`` is set."""

    def __init__(self) -> None:
        self.calls = 0
        self.back = threading.Event()

    def claim(self, limit: int) -> list[Delivery]:
        self.calls += 1
        if not self.back.is_set():
            raise StoreUnavailable("the job store is unavailable (Connection refused)")
        return []


def test_an_unreachable_outbox_is_one_line_not_a_traceback_per_poll(
    caplog: pytest.LogCaptureFixture,
) -> None:
    away = _Away()
    sender = Sender(away, poll=0.01)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="narrate.webhooks"):
        sender.start()
        try:
            until(lambda: away.calls >= 20, 30, "20 polls of the unreachable outbox")
            down = [r for r in caplog.records if r.name == "narrate.webhooks"]
            away.back.set()
            until(lambda: any("again" in r.getMessage() for r in caplog.records), 30, "back")
        finally:
            sender.stop()
    assert len(down) == 1 and down[0].exc_info is None, [r.getMessage() for r in down]
    assert "unreachable" in down[0].getMessage() and "Connection refused" in down[0].getMessage()

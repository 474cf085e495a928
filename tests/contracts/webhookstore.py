"""Two roles' contracts (WebhookEndpoints, Outbox), two webhook stores: the Redis one (its scripts, on a redis-server of the
test's own) and the in-memory one the fast tier runs on. Endpoints per tenant with a limit;
a delivery queued once per id; a claim held for its lease (two senders never take one, a
dead sender's claim comes back); a try recorded and rescheduled, or out of the outbox."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from service.adapters.memory.webhooks import MemoryWebhooks
from service.ports.webhooks import Attempt, Delivery, Endpoint, Outbox, WebhookEndpoints

if TYPE_CHECKING:
    from service.adapters.redis.webhooks import RedisWebhooks


@pytest.fixture
def store(request: pytest.FixtureRequest) -> MemoryWebhooks | RedisWebhooks:
    if request.getfixturevalue("backend") == "memory":
        return MemoryWebhooks()
    import redis

    client = redis.Redis.from_url(request.getfixturevalue("redis_url"), decode_responses=True)
    client.flushdb()
    from service.adapters.redis.webhooks import RedisWebhooks

    return RedisWebhooks(client)


def delivery(msg_id: str, job_id: str = "j1") -> Delivery:
    return Delivery(msg_id, "alpha", job_id, "job.succeeded", "http://x/", "ep_1", "{}", 100.0)


def attempt(d: Delivery, next_try: float | None, status: int = 500) -> Attempt:
    return Attempt(200.0, d.id, d.event, d.url, d.endpoint, status, "HTTP 500", next_try)


@pytest.fixture
def endpoints(store: MemoryWebhooks | RedisWebhooks) -> WebhookEndpoints:
    return store


@pytest.fixture
def outbox(store: MemoryWebhooks | RedisWebhooks) -> Outbox:
    return store


def test_endpoints_are_per_tenant_with_a_limit(endpoints: WebhookEndpoints) -> None:
    store = endpoints
    a = Endpoint("ep_a", "http://a/", ["job.failed"], "whsec_AAAA", 1.0)
    b = Endpoint("ep_b", "http://b/", ["job.succeeded"], "whsec_BBBB", 2.0)
    assert store.add_endpoint("alpha", a, 2) and store.add_endpoint("alpha", b, 2)
    assert not store.add_endpoint("alpha", Endpoint("ep_c", "http://c/", [], "s", 3.0), 2)
    assert store.endpoints("alpha") == [a, b] and store.endpoints("beta") == []
    assert not store.delete_endpoint("beta", "ep_a") and store.delete_endpoint("alpha", "ep_a")
    assert store.endpoints("alpha") == [b]
    assert store.default_secret("alpha") is None
    assert store.default_secret("alpha", "whsec_NEW") == "whsec_NEW"
    assert store.default_secret("alpha") == "whsec_NEW" and store.default_secret("beta") is None


def test_a_delivery_is_queued_once_and_claimed_by_one_sender_until_its_lease_ends(
    outbox: Outbox,
) -> None:
    store = outbox
    d = delivery("msg_1")
    assert store.enqueue(d, 100.0) and not store.enqueue(d, 100.0)
    assert store.enqueue(delivery("msg_later"), 500.0)
    assert store.claim(99.0, 30, 10) == []  # not due yet
    assert [c.id for c in store.claim(100.0, 30, 10)] == ["msg_1"]
    assert store.claim(120.0, 30, 10) == []  # held by the first sender
    again = store.claim(131.0, 30, 10)  # that sender died: its lease ran out
    assert [c.id for c in again] == ["msg_1"] and again[0] == d
    assert store.pending() == 2


def test_a_try_is_recorded_then_retried_or_finished_and_never_queued_again(
    outbox: Outbox,
) -> None:
    store = outbox
    d = delivery("msg_2")
    store.enqueue(d, 100.0)
    (claimed,) = store.claim(100.0, 30, 10)
    store.record(claimed, attempt(claimed, next_try=150.0))
    assert store.claim(149.0, 30, 10) == []
    (retry,) = store.claim(150.0, 30, 10)
    assert retry.attempts == 1 and retry.id == "msg_2"
    store.record(retry, attempt(retry, next_try=None, status=204))
    assert store.claim(10_000.0, 30, 10) == [] and store.pending() == 0
    assert not store.enqueue(d, 100.0)  # delivered: the same event is not sent again
    assert [(a.status, a.next_try) for a in store.attempts("j1")] == [(500, 150.0), (204, None)]
    assert store.attempts("other") == []

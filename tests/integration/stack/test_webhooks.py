"""Webhooks on the real stack: Redis, Celery workers (each running its sender thread) and
uvicorn, delivering to a real HTTP receiver on loopback that fails the first two tries of
each message. Every job's end arrives, its signature valid by the `standardwebhooks`
package, each try recorded; a worker SIGKILLed mid-delivery loses no event: its claim
expires and another worker sends it with the same webhook-id."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from devtools import stack as devstack
from devtools.receiver import Receiver
from tests.support.stack import Stack, start_stack, submit, wait_for

SCRIPT = "[段 1 · 3 秒] 评分员对通过的轨迹排序。"
HOOKS: dict[str, Any] = {
    "webhook_allow_private": 1,
    "webhook_backoff": 0.2,
    "webhook_timeout": 3,
    "webhook_lease": 4,
    "webhook_poll": 0.1,
}


def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.1)


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The local-storage stack of the module's tests (each on a tenant of its own: webhooks
    are a tenant's)."""
    stack = start_stack(tmp_path_factory.mktemp("hooks"), workers=2, **HOOKS)
    yield stack
    stack.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(fail_first=2).start()
    yield r
    r.stop()


def test_every_job_is_delivered_through_two_failed_tries_signed_and_recorded(
    hooked: Stack, receiver: Receiver
) -> None:
    stack = hooked
    with stack.client("alpha") as c:
        made = c.post("/v1/webhooks", json={"url": receiver.url})
        assert made.status_code == 201, made.text
        secret = made.json()["secret"]
        ids = [submit(c, SCRIPT).json()["id"] for _ in range(6)]
        for job_id in ids:
            assert wait_for(c, job_id)["status"] == "succeeded"
        until(lambda: len(receiver.delivered()) == 6, 60, "not every event delivered")
        for msg_id, req in receiver.delivered().items():
            body = Webhook(secret).verify(req.body, req.headers)
            assert body["type"] == "job.succeeded" and body["data"]["job_id"] in ids
            assert receiver.tries[msg_id] == 3
        tries = c.get(f"/v1/jobs/{ids[0]}/deliveries").json()
        assert [t["http_status"] for t in tries] == [500, 500, 204]
        assert len({t["webhook_id"] for t in tries}) == 1 and tries[-1]["next_try"] is None
        assert stack.redis().zcard("narrate:outbox") == 0


def test_on_s3_the_payloads_artifact_links_are_presigned_urls_that_serve_the_bytes(
    tmp_path: Path, receiver: Receiver
) -> None:
    from tests.support.s3 import BUCKET, S3Server, s3_env

    s3 = S3Server()
    s3.server.start()
    s3.client.create_bucket(Bucket=BUCKET)
    stack = devstack.start_stack(tmp_path, workers=1, env=s3_env(s3), **HOOKS)
    try:
        with stack.client() as c:
            secret = c.post("/v1/webhooks", json={"url": receiver.url}).json()["secret"]
            job = wait_for(c, submit(c, SCRIPT).json()["id"])
            assert job["status"] == "succeeded", job["error"]
            until(lambda: len(receiver.delivered()) == 1, 60, "not delivered")
            (req,) = receiver.delivered().values()
            links = Webhook(secret).verify(req.body, req.headers)["data"]["artifacts"]
            assert set(links) == set(job["artifacts"])
            for name, url in links.items():
                assert url.startswith(s3.url) and "Signature" in url, url
                served = c.get(f"/v1/jobs/{job['id']}/artifacts/{name}").content
                assert httpx.get(url).content == served  # no key needed: presigned
    finally:
        stack.stop()
        s3.server.stop()


def test_a_worker_killed_mid_delivery_loses_no_event(hooked: Stack) -> None:
    """(Last in the module: it kills the stack's workers.)"""
    receiver = Receiver().start()
    receiver.holding.set()  # the first try gets no answer: its sender dies holding it
    stack = hooked
    try:
        with stack.client("beta") as c:
            secret = c.post("/v1/webhooks", json={"url": receiver.url}).json()["secret"]
            job_id = submit(c, SCRIPT).json()["id"]
            assert wait_for(c, job_id)["status"] == "succeeded"
            assert receiver.held.wait(30), "the first try never came"
            # SIGKILL, mid-request: both workers, so the one whose sender holds it is killed.
            stack.kill("worker1")
            stack.kill("worker2")
            receiver.released.set()
            stack.start_worker("worker3")
            until(lambda: len(receiver.delivered()) == 1, 60, "the event was lost")
            (msg_id, req), = receiver.delivered().items()  # fmt: skip
            assert Webhook(secret).verify(req.body, req.headers)["data"]["job_id"] == job_id
            assert [r.headers["webhook-id"] for r in receiver.requests] == [msg_id, msg_id]
            tries = c.get(f"/v1/jobs/{job_id}/deliveries").json()
            assert [t["http_status"] for t in tries] == [204]  # the killed try left no record
    finally:
        receiver.stop()

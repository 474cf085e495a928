"""Webhooks, as the jobs layer runs them: register a tenant's endpoints (API side), write a
job's events to the outbox when it ends (whichever side ends it), and send what is due (the
workers' sender thread, workers/webhooks.py): at least once, each try recorded, retried with
exponential backoff and jitter until NARRATE_WEBHOOK_MAX_AGE, the same webhook-id each time."""

from __future__ import annotations

import logging
import os
import random
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from service.config import Settings
from service.domain import webhooks as wh
from service.domain.batch import Batch
from service.domain.errors import InputError, StoreUnavailable
from service.domain.job import Job, JobStatus
from service.ports import Artifacts
from service.ports.webhooks import (
    Attempt,
    Delivery,
    Endpoint,
    Outbox,
    WebhookEndpoints,
    WebhookSender,
)

log = logging.getLogger("narrate.webhooks")
MAX_ENDPOINTS = 20  # per tenant
NO_DEFAULT = (
    "a job's webhook_url is signed with your default webhook secret, and you have none yet: "
    "create it with POST /v1/webhooks/secret"
)


def new_secret() -> str:
    return wh.secret_from(os.urandom(24))


class Webhooks:
    def __init__(
        self,
        settings: Settings,
        endpoints: WebhookEndpoints,
        outbox: Outbox,
        sender: WebhookSender,
        storage: Artifacts,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.store = endpoints  # each tenant's receivers and default secret
        self.outbox = outbox
        self.sender = sender
        self.storage = storage
        self.clock = clock
        self.random = random.Random()

    # -- the API side ----------------------------------------------------------------------
    def _checked(self, url: str) -> str:
        wh.check_url(url)
        why = self.sender.refused(url)
        if why:
            raise InputError(f"webhook URL {url!r} is refused: {why}")
        return url

    def register(self, tenant: str, url: str, events: list[str] | None) -> Endpoint:
        endpoint = Endpoint(
            id="ep_" + uuid.uuid4().hex[:16],
            url=self._checked(url),
            events=wh.check_events(events),
            secret=new_secret(),
            created=self.clock(),
        )
        if not self.store.add_endpoint(tenant, endpoint, MAX_ENDPOINTS):
            raise InputError(f"a tenant may have at most {MAX_ENDPOINTS} webhook endpoints")
        return endpoint

    def endpoints(self, tenant: str) -> list[Endpoint]:
        return self.store.endpoints(tenant)

    def delete(self, tenant: str, endpoint_id: str) -> bool:
        return self.store.delete_endpoint(tenant, endpoint_id)

    def rotate_default(self, tenant: str) -> str:
        secret = new_secret()
        self.store.default_secret(tenant, secret)
        return secret

    def check_job_url(self, tenant: str, url: str) -> None:
        """A job's own ``webhook_url``, at submission."""
        self._checked(url)
        if self.store.default_secret(tenant) is None:
            raise InputError(NO_DEFAULT)

    def attempts(self, job_id: str) -> list[Attempt]:
        return self.outbox.attempts(job_id)

    # -- events ----------------------------------------------------------------------------
    def notify(self, job: Job, event: str, stage: str = "") -> int:
        """Queue ``event`` for every endpoint of the job's tenant that wants it, and for the
        job's own webhook_url (its ends only). Ids are made of the job, event, stage and
        endpoint: written twice (a step run again), an event is still sent once."""
        targets = [(e.id, e.url) for e in self.store.endpoints(job.tenant) if event in e.events]
        own = job.plan.options.webhook_url
        if own and event != "job.progress":
            targets.append(("", own))
        if not targets:
            return 0
        now = self.clock()
        status = JobStatus.RUNNING if event == "job.progress" else job.status
        body = wh.payload(event, now, job.id, status, self._links(job), job.error, stage)
        queued = 0
        for endpoint, url in targets:
            suffix = f"_{stage}" if stage else ""
            msg_id = f"msg_{job.id}_{event.replace('.', '_')}{suffix}_{endpoint or 'job'}"
            delivery = Delivery(
                msg_id, job.tenant, job.id, event, url, endpoint, body.decode(), now
            )
            queued += self.outbox.enqueue(delivery, now)
        return queued

    def notify_batch(
        self,
        batch: Batch,
        counts: dict[str, int],
        items: list[wh.ItemEventData],
        urls: set[str],
    ) -> int:
        """Queue ``batch.completed`` for the tenant's endpoints that want it and for the
        items' own webhook_urls (``urls``); one id per batch and endpoint, so it is sent once
        however many steps saw the last item end. Attempts are listed under the batch's id."""
        endpoints = self.store.endpoints(batch.tenant)
        targets = [(e.id, e.url) for e in endpoints if "batch.completed" in e.events]
        targets += [(f"url{i}", url) for i, url in enumerate(sorted(urls))]
        now = self.clock()
        body = wh.batch_payload(now, batch.id, counts, items).decode()
        queued = 0
        for endpoint, url in targets:
            msg_id = f"msg_{batch.id}_batch_completed_{endpoint}"
            own = "" if endpoint.startswith("url") else endpoint  # signed with the default
            delivery = Delivery(
                msg_id, batch.tenant, batch.id, "batch.completed", url, own, body, now
            )
            queued += self.outbox.enqueue(delivery, now)
        return queued

    def notify_safely(self, job: Job, event: str, stage: str = "", retry: bool = False) -> None:
        """A job's end is not undone by an event that could not be written: it is logged
        (an unreachable store is raised when ``retry``: the caller's step runs again)."""
        try:
            self.notify(job, event, stage)
        except StoreUnavailable:
            if retry:
                raise
            log.exception("job %s: %s not queued for its webhooks", job.id, event)
        except Exception:
            log.exception("job %s: %s not queued for its webhooks", job.id, event)

    def _links(self, job: Job) -> dict[str, str]:
        """Each artifact's URL: presigned when the store offers one (S3), else the API's."""
        base = self.settings.public_url.rstrip("/")
        out: dict[str, str] = {}
        for name in job.artifacts if job.status == JobStatus.SUCCEEDED else []:
            served = self.storage.served(job.tenant, job.id, name)
            url = served.url(self.settings.presign_seconds) if served is not None else None
            out[name] = url or f"{base}/v1/jobs/{job.id}/artifacts/{name}"
        return out

    # -- sending (the workers) -------------------------------------------------------------
    def claim(self, limit: int) -> list[Delivery]:
        """Up to ``limit`` due deliveries, each held for NARRATE_WEBHOOK_LEASE: longer than a
        try's deadline (NARRATE_WEBHOOK_TIMEOUT), so no other sender tries it meanwhile."""
        return self.outbox.claim(self.clock(), self.settings.webhook_lease, limit)

    def send_due(self, pool: ThreadPoolExecutor | None = None, limit: int = 16) -> int:
        """Claim what is due and try each once; how many were tried."""
        due = self.claim(limit)
        if pool is None:
            for d in due:
                self.attempt(d)
        else:
            list(pool.map(self.attempt, due))
        return len(due)

    def _secret(self, delivery: Delivery) -> str | None:
        if not delivery.endpoint:
            return self.store.default_secret(delivery.tenant)
        for e in self.store.endpoints(delivery.tenant):
            if e.id == delivery.endpoint:
                return e.secret
        return None

    def attempt(self, delivery: Delivery) -> Attempt:
        secret = self._secret(delivery)
        now = self.clock()
        status: int | None = None
        error: str | None = "the endpoint (or the default secret) was deleted"
        if secret is not None:
            body = delivery.body.encode()
            stamp = int(now)
            headers = {
                "content-type": "application/json",
                "user-agent": "narrate-webhooks",
                "webhook-id": delivery.id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": wh.sign(secret, delivery.id, stamp, body),
            }
            status, error = self.sender.post(delivery.url, headers, body)
        nxt = None
        n = delivery.attempts + 1
        if error is not None and secret is not None:
            jitter = 0.5 + self.random.random()
            cap = self.settings.webhook_backoff_max
            later = now + wh.backoff(n, self.settings.webhook_backoff, cap, jitter)
            if later - delivery.created <= self.settings.webhook_max_age:
                nxt = later
        attempt = Attempt(
            now, delivery.id, delivery.event, delivery.url, delivery.endpoint, status, error, nxt
        )
        self.outbox.record(delivery, attempt)
        if error is None:
            log.info("job %s: %s delivered to %s", delivery.job_id, delivery.event, delivery.url)
        elif nxt is None:
            log.warning(
                "job %s: %s to %s given up: %s",
                delivery.job_id,
                delivery.event,
                delivery.url,
                error,
            )
        return attempt

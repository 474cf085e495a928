"""A batch's life as its items live theirs: each item's start, stage and end go on the
batch's event stream (GET /v1/batches/{id}/events), and when the last item ends, the batch's
``completed`` event (with the counts) and its ``batch.completed`` webhook, once.

"Once" without a lock: every step that ends an item looks at all the items after its own
write, so the step that ends the last one always sees them all ended (two such steps may
both see it: the webhook's id is the batch's, so the outbox keeps one, and the ``completed``
event is written by one script that sets a flag). A step killed between the two is run
again (its job ended: steps.py ``_admit`` calls ``Lifecycle.ended`` again)."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.domain.job import TERMINAL, Job, JobStatus
from service.domain.webhooks import ItemEventData
from service.domain.wire import JsonObject, JsonValue
from service.ports import BatchEvents, BatchStore, JobRecords

if TYPE_CHECKING:
    from service.jobs.webhooks import Webhooks

log = logging.getLogger("narrate.jobs")


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """Batch items' changes on their batches' streams (``events``), read from the ``jobs``
    and ``batches`` records; the batch's webhook through ``webhooks``."""

    jobs: JobRecords
    batches: BatchStore
    events: BatchEvents
    webhooks: Webhooks | None = None

    def stage(self, job: Job, stage: str) -> None:
        if job.batch:
            self.events.publish(
                job.batch,
                "item",
                {"job": job.id, "status": JobStatus.RUNNING.value, "stage": stage},
            )

    def ended(self, job: Job) -> None:
        """``job`` (an item, as stored) has ended: its event, then the batch's if it was the
        last. StoreUnavailable propagates (the caller's step is run again)."""
        if job.batch:
            self.item_ended(job)
            self.settle(job.batch)

    def item_ended(self, job: Job) -> None:
        """The item's end on its batch's stream."""
        if job.batch:
            error = job.error.code if job.error else None
            item: JsonObject = {"job": job.id, "status": job.status.value, "error": error}
            self.events.publish(job.batch, "item", item)

    def settle(self, batch_id: str) -> None:
        """If every item has ended: the batch's ``completed`` event and webhook (the items
        read in one round trip)."""
        batch = self.batches.get(batch_id)
        if batch is None:
            return
        ids = [i.job for i in batch.items]
        found = dict(zip(ids, self.jobs.get_many(ids), strict=True))
        if any(j is not None and j.status not in TERMINAL for j in found.values()):
            return
        items: list[ItemEventData] = []
        urls: set[str] = set()
        for i in batch.items:
            j = found[i.job]
            items.append({"name": i.name, "job_id": i.job, "status": j.status if j else "deleted"})
            if j is not None and j.plan.options.webhook_url:
                urls.add(j.plan.options.webhook_url)
        counts = dict(Counter(str(i["status"]) for i in items))
        counts["total"] = len(items)
        if self.webhooks is not None:  # first: a step killed after it is run again
            self.webhooks.notify_batch(batch, counts, items, urls)
        counted: JsonObject = {k: n for k, n in counts.items()}
        listed: list[JsonValue] = [
            {"name": i["name"], "job_id": i["job_id"], "status": i["status"]} for i in items
        ]
        if self.events.complete(batch.id, {"counts": counted, "items": listed}):
            log.info("batch %s completed: %s", batch.id, counts)

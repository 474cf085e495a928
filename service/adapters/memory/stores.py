"""Every store in this process's memory, and the in-memory queue (NARRATE_REDIS_URL
``memory://``): the fast test tier's backend, and a way to try the API without a Redis.
Nothing survives the process, and tasks run only when the queue is drained (queue.py)."""

from __future__ import annotations

from service.adapters.memory.batches import MemoryBatches, MemoryBatchEvents
from service.adapters.memory.jobstore import MemoryJobStore
from service.adapters.memory.lanes import MemoryLanes, MemoryLease
from service.adapters.memory.lexicons import MemoryLexicons
from service.adapters.memory.metrics import MemoryMetrics
from service.adapters.memory.presets import MemoryPresets
from service.adapters.memory.queue import MemoryQueue
from service.adapters.memory.quotas import MemoryQuotas
from service.adapters.memory.tenant_keys import MemoryTenantKeys
from service.adapters.memory.webhooks import MemoryWebhooks
from service.adapters.stores import backend_stores
from service.ports.stores import Stores


def memory_stores() -> Stores:
    queue = MemoryQueue()
    jobs = MemoryJobStore(queue)
    return backend_stores(
        jobs,
        MemoryWebhooks(),
        MemoryMetrics(jobs, queue),
        lanes=MemoryLanes(queue),
        lease=MemoryLease(),
        batches=MemoryBatches(),
        batch_events=MemoryBatchEvents(),
        presets=MemoryPresets(),
        quotas=MemoryQuotas(jobs),
        lexicons=MemoryLexicons(),
        tenant_keys=MemoryTenantKeys(),
        queue=queue,
    )

"""Every store on one Redis client (NARRATE_REDIS_URL ``redis://``, ``rediss://``,
``unix://`` or ``sentinel://``, see url.py), and the queue on Celery over the same Redis."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from service.adapters.redis import url as redis_url
from service.adapters.redis.batch_events import RedisBatchEvents
from service.adapters.redis.batches import RedisBatches
from service.adapters.redis.jobstore import JobStore
from service.adapters.redis.lanes import RedisLanes, RedisLease
from service.adapters.redis.lexicons import RedisLexicons
from service.adapters.redis.metrics import Metrics
from service.adapters.redis.presets import RedisPresets
from service.adapters.redis.queue import CeleryQueue, make_celery
from service.adapters.redis.quotas import RedisQuotas
from service.adapters.redis.tenant_keys import RedisTenantKeys
from service.adapters.redis.webhooks import RedisWebhooks
from service.adapters.stores import backend_stores
from service.config import Settings
from service.ports import QUEUE
from service.ports.stores import Stores

if TYPE_CHECKING:
    from celery import Celery


log = logging.getLogger("narrate.store")


def redis_stores(settings: Settings, app: Celery | None = None) -> Stores:
    """Every call gives up after ``redis_timeout``: a hung Redis costs a request that long.
    ``app``: a worker's own Celery app (None: one made from the settings)."""
    timeout = settings.redis_timeout
    log.info("Redis calls time out after %g s", timeout)
    client = redis_url.client(settings.broker_url, timeout, timeout)
    keep = (settings.keep_jobs_days + 1) * 86400  # a batch outlives its jobs by a day
    return backend_stores(
        JobStore(client),
        RedisWebhooks(client),
        Metrics(client),
        lanes=RedisLanes(client, QUEUE),
        lease=RedisLease(client),
        batches=RedisBatches(client, keep),
        batch_events=RedisBatchEvents(client),
        presets=RedisPresets(client),
        quotas=RedisQuotas(client),
        lexicons=RedisLexicons(client),
        tenant_keys=RedisTenantKeys(client),
        queue=CeleryQueue(app or make_celery(settings)),
    )

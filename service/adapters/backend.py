"""The backend by NARRATE_REDIS_URL's scheme, as kombu maps transport names: ``memory://``
is every store in this process's memory (adapters/memory/stores.py), any other URL a Redis
(``redis://``, ``rediss://``, ``unix://``, ``sentinel://``: adapters/redis/stores.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.config import Settings
from service.ports.stores import Stores

if TYPE_CHECKING:
    from celery import Celery

MEMORY = "memory://"


def in_memory(settings: Settings) -> bool:
    return (settings.redis_url or "").startswith(MEMORY)


def open_stores(settings: Settings, app: Celery | None = None) -> Stores:
    """Every store of the configured backend, over one client (``app``: a worker's own
    Celery app, for the Redis backend's queue)."""
    if in_memory(settings):
        from service.adapters.memory.stores import memory_stores

        return memory_stores()
    from service.adapters.redis.stores import redis_stores  # redis, Celery: loaded here

    return redis_stores(settings, app)

"""The backend by NARRATE_REDIS_URL's scheme, as kombu maps transport names: ``memory://``
is every store in this process's memory (adapters/memory/stores.py), any other URL a Redis
(``redis://``, ``rediss://``, ``unix://``, ``sentinel://``: adapters/redis/stores.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.config import Settings
from service.domain.errors import InputError
from service.ports.stores import Stores

if TYPE_CHECKING:
    from celery import Celery

MEMORY = "memory://"


def in_memory(settings: Settings) -> bool:
    return (settings.redis_url or "").startswith(MEMORY)


def require_shared(settings: Settings, who: str) -> None:
    """Refuse ``memory://`` where ``who`` runs in a process of its own: its stores and queue
    would be that process's alone, so a job submitted elsewhere would wait for ever, unseen."""
    if in_memory(settings):
        raise InputError(
            f"NARRATE_REDIS_URL={settings.redis_url}: memory:// keeps the stores and the queue "
            f"inside one process, and {who} runs in processes of its own, so no job would "
            "reach it. Set NARRATE_REDIS_URL to a redis:// (or sentinel://) URL that the API, "
            "the workers and the reconciler share, or leave it unset for `narrate serve`'s "
            "own Redis."
        )


def open_stores(settings: Settings, app: Celery | None = None) -> Stores:
    """Every store of the configured backend, over one client (``app``: a worker's own
    Celery app, for the Redis backend's queue)."""
    if in_memory(settings):
        from service.adapters.memory.stores import memory_stores

        return memory_stores()
    from service.adapters.redis.stores import redis_stores  # redis, Celery: loaded here

    return redis_stores(settings, app)

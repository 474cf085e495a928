"""The fair-share side of the queue: each tenant's lane of waiting tasks, from which the
dispatcher (service/jobs/dispatch.py) keeps a small window of tasks in the broker's queue,
and the lease that lets exactly one dispatcher work at a time.

Lane order is the tenant's own: a job's segments in order, jobs in the order they came, and
a started job's finalize at the head, so a job that has started finishes before the
tenant's next one starts."""

from __future__ import annotations

from typing import Protocol

from service.domain.wire import JsonObject


class Lanes(Protocol):
    """adapters/redis/lanes.py on Redis, adapters/memory/lanes.py in memory. StoreUnavailable when
    the store cannot be reached."""

    def lane(self, tenant: str) -> str:
        """The name of ``tenant``'s lane, the ``queue`` a new job's messages go to in the job
        store's atomic create (which also lists the tenant as having work)."""
        ...

    def push_first(self, tenant: str, message: str) -> None:
        """Put ``message`` at the head of ``tenant``'s lane (a started job's finalize)."""
        ...

    def heads(self) -> dict[str, str]:
        """Each tenant with work waiting, and the message at the head of its lane (tenants
        whose lane has emptied stop being listed)."""
        ...

    def move(self, tenant: str, message: str, first: bool) -> bool:
        """Move ``message`` from the head of ``tenant``'s lane to the broker's queue (its
        head when ``first``, else its tail) in one atomic step; False, moving nothing, when
        it is no longer the lane's head."""
        ...

    def depth(self) -> int:
        """Messages waiting in the broker's queue (not yet taken by a worker)."""
        ...

    def depths(self) -> dict[str, int]:
        """Messages waiting in each tenant's lane."""
        ...

    def waiting(self) -> list[JsonObject]:
        """Every message in every lane, as the broker would hold it (for the reconciler)."""
        ...

    def queued(self) -> list[JsonObject]:
        """Every message in the broker's queue that no worker has taken yet."""
        ...


class Lease(Protocol):
    """A lease held by one holder at a time, that lapses unless renewed."""

    def acquire(self, holder: str, seconds: float) -> bool:
        """Take the lease (or keep it, renewed, if ``holder`` has it); False if another
        holds it."""
        ...

    def release(self, holder: str) -> None: ...

"""Each tenant's quotas, checked at the door before anything is planned or stored: queued
jobs, running jobs and submissions a minute (the settings, or the tenant's key's own). Past
one, QuotaExceeded (429) names the limit, its value and the use. A batch's size (max batch
items) is a limit of the request, not of the time: over it, a 422 (InputError) names both."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from service.config import Settings
from service.domain.errors import InputError, QuotaExceeded
from service.ports import Quotas

# A job count frees up when a job starts or ends: no exact time to give, a short wait.
COUNT_WAIT = 5.0
# How long a submission's reservation may hold its jobs as queued (admission to stored): an
# API process that dies mid-batch frees its tenant's count after this long.
RESERVE_TTL = 300.0


class QuotaGate:
    def __init__(
        self, settings: Settings, port: Quotas, overrides: Callable[[str], dict[str, int]]
    ) -> None:
        self.settings = settings
        self.port = port
        self.overrides = overrides  # the tenant's key's limits (KeyStore.limits)

    def limits(self, tenant: str) -> dict[str, int]:
        s, own = self.settings, self.overrides(tenant)
        return {
            "max_queued": own.get("max_queued", s.max_queued_jobs),
            "max_running": own.get("max_running", s.max_running_jobs),
            "per_minute": own.get("per_minute", s.submissions_per_minute),
            "max_batch_items": own.get("max_batch_items", s.batch_max_items),
            "weight": own.get("weight", 1),  # the tenant's fair share (service/jobs/dispatch.py)
        }

    def running(self, tenant: str) -> int:
        return self.port.in_use(tenant)[1]

    @contextmanager
    def admitted(self, tenant: str, jobs: int = 1) -> Iterator[None]:
        """Let ``jobs`` new jobs of one submission in, or raise QuotaExceeded; while the
        caller plans and stores them, they count as queued (a reservation, checked and kept
        in one atomic step, released once they are stored or refused). Read and stored
        apart, 10 batches of 10 at once against a limit of 10 queued 30."""
        lim, token = self.limits(tenant), uuid.uuid4().hex
        ok, queued = self.port.reserve(tenant, token, jobs, lim["max_queued"], RESERVE_TTL)
        if not ok:
            adding = f", and this submission adds {jobs}" if jobs > 1 else ""
            raise QuotaExceeded(
                f"tenant {tenant} has {queued} jobs queued{adding}, the limit "
                f"(NARRATE_MAX_QUEUED_JOBS or the key's --max-queued) is {lim['max_queued']}; "
                "try again when one has started",
                COUNT_WAIT,
            )
        try:
            self._running_and_rate(tenant, lim)
            yield
        finally:
            self.port.release(tenant, token)

    def _running_and_rate(self, tenant: str, lim: dict[str, int]) -> None:
        running = self.port.in_use(tenant)[1]
        if running >= lim["max_running"]:
            raise QuotaExceeded(
                f"tenant {tenant} has {running} jobs running, the limit "
                f"(NARRATE_MAX_RUNNING_JOBS or the key's --max-running) is "
                f"{lim['max_running']}; try again when one has finished",
                COUNT_WAIT,
            )
        self._per_minute(tenant, lim["per_minute"])

    def admit_request(self, tenant: str) -> None:
        """One request answered now (a speech request: service/jobs/speech.py) counted as a
        submission against the tenant's per-minute limit, or QuotaExceeded."""
        self._per_minute(tenant, self.limits(tenant)["per_minute"])

    def _per_minute(self, tenant: str, limit: int) -> None:
        wait = self.port.take(tenant, limit)
        if wait > 0:
            raise QuotaExceeded(
                f"tenant {tenant} has used its {limit} submissions this minute, "
                "the limit (NARRATE_SUBMISSIONS_PER_MINUTE or the key's --per-minute); "
                f"try again in {wait:.1f}s",
                wait,
            )


def check_batch_size(tenant: str, n: int, limit: int) -> None:
    """InputError unless a batch of ``n`` items is within the tenant's max batch items
    (its key's --max-batch-items, else NARRATE_BATCH_MAX_ITEMS)."""
    if n > limit:
        raise InputError(
            f"the batch has {n} items, over tenant {tenant}'s limit of {limit} "
            "(batch_max_items: NARRATE_BATCH_MAX_ITEMS or the key's --max-batch-items)",
            loc=("items",),
        )
    if n == 0:
        raise InputError("the batch has no items (script parts or 'items')", loc=("items",))

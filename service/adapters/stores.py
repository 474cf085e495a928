"""One backend's Stores from the objects that play several roles each: its job store (the
first nine roles, and the sweep it opens), its webhook store (endpoints and outbox) and its
figures (metrics and counts). Both backends (memory/stores.py, redis/stores.py) build theirs
here, so which object plays which role is said once. The Protocols below only type those
arguments, as Python has no intersection of Protocols: they are no ports (a caller holds one
role, service/ports/jobs.py), so they live here and not in service/ports."""

from __future__ import annotations

from typing import Protocol

from service import ports
from service.ports.dispatch import Lanes, Lease
from service.ports.stores import Stores


class JobStoreRoles(
    ports.JobRecords,
    ports.JobTransitions,
    ports.SegmentLedger,
    ports.Deliveries,
    ports.EventLog,
    ports.ActiveJobs,
    ports.QueueHeads,
    ports.FleetRegistry,
    Protocol,
):
    """A job store in every role (adapters/redis/jobstore.py, adapters/memory/jobstore.py)."""

    def sweeping(self) -> ports.JobSweep: ...


class WebhookRoles(ports.WebhookEndpoints, ports.Outbox, Protocol):
    """Endpoints and outbox in one (adapters/redis/webhooks.py, adapters/memory/webhooks.py)."""


class FigureRoles(ports.Metrics, ports.Counts, Protocol):
    """What /metrics reads, added to and counted in one (adapters/*/metrics.py)."""


def backend_stores(
    jobs: JobStoreRoles,
    hooks: WebhookRoles,
    figures: FigureRoles,
    *,
    lanes: Lanes,
    lease: Lease,
    batches: ports.BatchStore,
    batch_events: ports.BatchEvents,
    presets: ports.PresetStore,
    quotas: ports.Quotas,
    lexicons: ports.LexiconStore,
    tenant_keys: ports.TenantKeys,
    queue: ports.Queue,
) -> Stores:
    return Stores(
        records=jobs,
        transitions=jobs,
        ledger=jobs,
        deliveries=jobs,
        events=jobs,
        active=jobs,
        heads=jobs,
        fleet=jobs,
        sweep=jobs.sweeping(),
        lanes=lanes,
        lease=lease,
        batches=batches,
        batch_events=batch_events,
        webhook_endpoints=hooks,
        outbox=hooks,
        presets=presets,
        quotas=quotas,
        lexicons=lexicons,
        tenant_keys=tenant_keys,
        metrics=figures,
        counts=figures,
        queue=queue,
    )

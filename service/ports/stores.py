"""Every store of one backend, by role, over one client: what service/adapters/backend.py
opens for a NARRATE_REDIS_URL (``redis://``, ``rediss://``, ``sentinel://`` or ``memory://``)
and service/wiring.py hands, a role at a time, to the parts that use it."""

from __future__ import annotations

from dataclasses import dataclass

from service.ports.dispatch import Lanes, Lease
from service.ports.jobs import (
    ActiveJobs,
    BatchEvents,
    BatchStore,
    Counts,
    Deliveries,
    EventLog,
    FleetRegistry,
    JobRecords,
    JobSweep,
    JobTransitions,
    LexiconStore,
    Metrics,
    PresetStore,
    Queue,
    QueueHeads,
    Quotas,
    SegmentLedger,
)
from service.ports.tenants import TenantKeys
from service.ports.webhooks import Outbox, WebhookEndpoints


@dataclass(frozen=True, slots=True)
class Stores:
    """One backend's stores; several roles may be one object (the job store plays the
    first nine)."""

    records: JobRecords
    transitions: JobTransitions
    ledger: SegmentLedger
    deliveries: Deliveries
    events: EventLog
    active: ActiveJobs
    heads: QueueHeads
    fleet: FleetRegistry
    sweep: JobSweep
    lanes: Lanes
    lease: Lease
    batches: BatchStore
    batch_events: BatchEvents
    webhook_endpoints: WebhookEndpoints
    outbox: Outbox
    presets: PresetStore
    quotas: Quotas
    lexicons: LexiconStore
    tenant_keys: TenantKeys
    metrics: Metrics
    counts: Counts
    queue: Queue

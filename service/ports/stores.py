"""Every store of one backend, by role, over one client: what service/adapters/backend.py
opens for a NARRATE_REDIS_URL (``redis://``, ``rediss://``, ``sentinel://`` or ``memory://``)
and service/wiring.py hands, a role at a time, to the parts that use it."""

from __future__ import annotations

from dataclasses import dataclass

from service.ports import dispatch, jobs, tenants, webhooks


@dataclass(frozen=True, slots=True)
class Stores:
    """One backend's stores; several roles may be one object (the job store plays the
    first nine: service/adapters/stores.py says which plays which). Each field names its
    port's module."""

    records: jobs.JobRecords
    transitions: jobs.JobTransitions
    ledger: jobs.SegmentLedger
    deliveries: jobs.Deliveries
    events: jobs.EventLog
    active: jobs.ActiveJobs
    heads: jobs.QueueHeads
    fleet: jobs.FleetRegistry
    sweep: jobs.JobSweep
    lanes: dispatch.Lanes
    lease: dispatch.Lease
    batches: jobs.BatchStore
    batch_events: jobs.BatchEvents
    webhook_endpoints: webhooks.WebhookEndpoints
    outbox: webhooks.Outbox
    presets: jobs.PresetStore
    quotas: jobs.Quotas
    lexicons: jobs.LexiconStore
    tenant_keys: tenants.TenantKeys
    metrics: jobs.Metrics
    counts: jobs.Counts
    queue: jobs.Queue

"""Every Redis key the service writes, in one place: the prefix and each family of keys.
The modules that read and write them (jobstore.py, fleet.py, lanes.py, ...) say what each
key holds; this one says what it is called, so no two modules can disagree on a name.

  job:<id>, job:<id>:{seg,done,remaining,deliveries,events,webhooks}   a job (jobstore.py)
  tenant:<t>:jobs, idem:<t>:<key>, active                              its listings
  metrics:*                                                            metrics.py
  workers, workers:held, workers:storage                               fleet.py
  lanes, lane:<t>, dispatcher, dispatcher:held                         lanes.py
  batch:<id>[:events|:completed], tenant:<t>:batches, idem:<t>:batch:<key>   batches.py
  webhooks:<t>, webhooks:<t>:secret, outbox, outbox:<delivery>         webhooks.py
  presets:<t>, lexicons:<t>, lexicon:<t>:<id>:*, keys, keys:*          the tenants' own
  guard:<name>                                                         edge-tts's guard
"""

from __future__ import annotations

PREFIX = "narrate:"


def key(*parts: str) -> str:
    """``narrate:`` and the parts, ':'-joined."""
    return PREFIX + ":".join(parts)


# The job records' counters, moved by the same scripts as the jobs (metrics.py, quotas.py).
JOB_COUNTS = key("metrics", "jobs")
TENANT_COUNTS = key("metrics", "tenants")

# The fleet's heartbeats (fleet.py).
WORKERS = key("workers")
HELD = key("workers", "held")
STORAGE = key("workers", "storage")

# The tenants' lanes and the dispatcher's lease (lanes.py).
LANES = key("lanes")
LANE_PREFIX = key("lane", "")
LEASE = key("dispatcher")

# The webhooks' outbox (webhooks.py).
OUTBOX = key("outbox")

# The tenants' keys (tenant_keys.py).
KEYS = key("keys")
KEYS_OF_TENANT = key("keys", "tenant", "")
KEYS_IMPORTED = key("keys", "imported")

# The tenants' presets and pronunciation dictionaries (presets.py, lexicons.py).
PRESETS = key("presets", "")
LEXICONS = key("lexicons", "")


def job_events(job_id: str) -> str:
    return key("job", job_id, "events")


def lexicon(tenant: str, lexicon_id: str) -> str:
    return key("lexicon", tenant, lexicon_id)


def guard(name: str) -> str:
    return key("guard", name)

"""The Celery app the worker processes run: `celery -A workers.celery_app worker`."""

from __future__ import annotations

import sys

from service import logs, wiring
from service.adapters.backend import require_shared
from service.config import get_settings
from service.domain.errors import InputError
from workers import restore_guard

try:  # a worker on memory:// would work a queue of its own that no API fills
    require_shared(get_settings(), "a Celery worker")
except InputError as exc:
    sys.exit(f"narrate worker: error: {exc}")
logs.configure(get_settings().log_format)
restore_guard.install()  # a failed restore of unacked messages must not end the worker
app = wiring.celery(get_settings())
app.conf.include = ["workers.tasks"]

# Their signal handlers: the worker's heartbeat, its dispatcher and its webhook sender.
from workers import dispatcher, heartbeat, webhooks  # noqa: E402, F401

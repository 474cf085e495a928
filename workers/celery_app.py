"""The Celery app the worker processes run: `celery -A workers.celery_app worker`."""

from __future__ import annotations

from service import logs, wiring
from service.config import get_settings
from workers import restore_guard

logs.configure(get_settings().log_format)
restore_guard.install()  # a failed restore of unacked messages must not end the worker
app = wiring.celery(get_settings())
app.conf.include = ["workers.tasks"]

# Their signal handlers: the worker's heartbeat, its dispatcher and its webhook sender.
from workers import dispatcher, heartbeat, webhooks  # noqa: E402, F401

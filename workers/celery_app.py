"""The Celery app the worker processes run: `celery -A workers.celery_app worker`."""

from __future__ import annotations

from service.adapters.queue import make_celery
from service.config import get_settings

app = make_celery(get_settings())
app.conf.include = ["workers.tasks"]

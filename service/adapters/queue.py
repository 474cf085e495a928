"""Celery configured from Settings. The API only sends tasks by name through this app; the
worker processes (workers/celery_app.py) use the same configuration and register the tasks."""

from __future__ import annotations

from celery import Celery

from service.config import Settings

QUEUE = "narrate"
SEGMENT_TASK = "narrate.segment"
FINALIZE_TASK = "narrate.finalize"


def make_celery(settings: Settings) -> Celery:
    app = Celery("narrate", broker=settings.broker_url)
    # Redelivery of an unacked task waits for visibility_timeout: keep it at least twice the
    # hard limit, or a slow task would be handed to a second worker while still running.
    transport = {
        "visibility_timeout": int(settings.visibility_timeout),
        # kombu sweeps for abandoned (unacked, past visibility) messages every interval x
        # throttle seconds (10 x 10 by default); scan on every tick instead.
        "unacked_restore_interval": int(settings.restore_interval),
        "unacked_restore_throttle": 1,
    }
    app.conf.update(
        task_default_queue=QUEUE,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # A task killed by the hard time limit is not acked either: it comes back after
        # visibility_timeout and counts as a delivery, so the cap (not luck) ends it.
        task_acks_on_failure_or_timeout=False,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=settings.task_soft_time_limit,
        task_time_limit=settings.task_time_limit,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        worker_hijack_root_logger=False,
        # The API answers 503 quickly rather than hanging while the broker is down.
        broker_connection_timeout=3,
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.5},
    )
    return app

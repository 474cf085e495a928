"""Celery configured from Settings. The API only sends tasks by name through this app; the
worker processes (workers/celery_app.py) use the same configuration and register the tasks."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

from celery import Celery

from service.adapters.redis import url as redis_url
from service.config import Settings
from service.domain.wire import JsonObject
from service.ports import FINALIZE_TASK, QUEUE, SEGMENT_TASK


def make_celery(settings: Settings) -> Celery:
    url, sentinel = redis_url.broker(settings.broker_url)
    app = Celery("narrate", broker=url)
    # Redelivery of an unacked task waits for visibility_timeout: keep it at least twice the
    # hard limit, or a slow task would be handed to a second worker while still running.
    transport = {
        "visibility_timeout": int(settings.visibility_timeout),
        # kombu sweeps for abandoned (unacked, past visibility) messages every interval x
        # throttle seconds (10 x 10 by default); scan on every tick instead.
        "unacked_restore_interval": int(settings.restore_interval),
        "unacked_restore_throttle": 1,
        **sentinel,  # master_name (and the Sentinels' password) for a sentinel:// URL
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
        # Celery >= 5.6 on Redis: a worker takes a message only when a pool process is free,
        # so none waits reserved behind a running step (hidden from the backlog gauge and from
        # the other workers, and with acks_late creeping up with ETA tasks).
        worker_disable_prefetch=True,
        # Celery >= 5.5: the cold shutdown (SIGTERM with REMAP_SIGTERM=SIGQUIT) waits this long
        # for the running step, then cancels it unacked: its message goes back to the queue as
        # the worker's channel closes (acks_late), and another worker runs the step again.
        worker_soft_shutdown_timeout=settings.worker_soft_shutdown_timeout,
        # An idle worker has nothing to finish: it leaves at once (a scale-down frees the pod).
        worker_enable_soft_shutdown_on_idle=False,
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


def task_message(app: Celery, name: str, args: list[Any]) -> str:
    """The exact bytes kombu's Redis transport pushes onto the queue list for
    ``app.send_task(name, args=args)``: built here so that the job store can push them in the
    same atomic step that writes the job's record."""
    task_id = str(uuid.uuid4())
    headers, properties, body, _ = app.amqp.create_task_message(
        task_id, name, args, {}, ignore_result=None
    )  # as send_task: None defers to the task's own setting
    payload = json.dumps(body).encode()
    return json.dumps(
        {
            "body": base64.b64encode(payload).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": headers,
            "properties": {
                **properties,
                "delivery_mode": 2,
                "priority": 0,
                "body_encoding": "base64",
                "delivery_info": {"exchange": "", "routing_key": QUEUE},
                "delivery_tag": str(uuid.uuid4()),
            },
        }
    )


class CeleryQueue:
    """The Queue port on Celery: send a task by name, encode one as the bytes the broker
    holds (for the job store's atomic create), and read which step a held message is."""

    def __init__(self, app: Celery) -> None:
        self.app = app
        self.name = QUEUE

    def send(self, name: str, args: list[Any]) -> None:
        from service.adapters.redis.errors import translated

        with translated():  # a Redis error publishing is the store's (the broker is Redis)
            self.app.send_task(name, args=args)

    def encode(self, name: str, args: list[Any]) -> str:
        return task_message(self.app, name, args)

    def step(self, message: JsonObject) -> tuple[str, str] | None:
        """(job id, step) of a message as the broker holds it: step ``segment:<index>`` or
        ``finalize`` (the names the job store counts deliveries by); None for any other."""
        headers, body = message.get("headers"), message.get("body")
        if not isinstance(headers, dict) or not isinstance(body, str):
            return None  # not kombu's envelope: not a job step
        try:
            name = headers["task"]
            args = json.loads(base64.b64decode(body))[0]
            if name == SEGMENT_TASK:
                return str(args[0]), f"segment:{int(args[1])}"
            if name == FINALIZE_TASK:
                return str(args[0]), "finalize"
        except (KeyError, IndexError, TypeError, ValueError):
            pass
        return None

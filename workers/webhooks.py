"""Each worker's webhook sender: a thread in the worker's main process that claims due
deliveries from the outbox and tries them (service/jobs/webhooks.py), a few at once, never
inside a job's step. Started when the worker is ready, stopped on a clean shutdown; a worker
killed mid-try leaves its claims to expire (NARRATE_WEBHOOK_LEASE), and another sends them."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery.signals import worker_ready, worker_shutdown

from service import wiring
from service.config import get_settings
from service.jobs.webhooks import Webhooks

log = logging.getLogger("narrate.webhooks")
PARALLEL = 8  # tries at once per worker (a slow receiver holds one, for webhook_timeout)


class Sender(threading.Thread):
    def __init__(self, hooks: Webhooks, poll: float) -> None:
        super().__init__(name="narrate-webhooks", daemon=True)
        self.hooks = hooks
        self.poll = poll
        self.stopping = threading.Event()
        self.pool = ThreadPoolExecutor(PARALLEL, thread_name_prefix="narrate-webhook")

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                tried = self.hooks.send_due(self.pool, PARALLEL)
            except Exception:  # Redis away: try again after a pause
                log.exception("webhook sender: outbox unreachable")
                tried = 0
            if not tried:
                self.stopping.wait(self.poll)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)
        self.pool.shutdown(wait=False, cancel_futures=True)


_sender: Sender | None = None


@worker_ready.connect
def _start(sender: Any, **_: object) -> None:
    global _sender
    settings = get_settings()
    _sender = Sender(wiring.webhooks(settings, wiring.job_store(settings).r), settings.webhook_poll)
    _sender.start()


@worker_shutdown.connect
def _stop(**_: object) -> None:
    if _sender is not None:
        _sender.stop()

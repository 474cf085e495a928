"""Each worker's webhook sender: a thread in the worker's main process that claims due
deliveries from the outbox and tries them (service/jobs/webhooks.py), a few at once, never
inside a job's step. Started when the worker is ready, stopped on a clean shutdown; a worker
killed mid-try leaves its claims to expire (NARRATE_WEBHOOK_LEASE), and another sends them.

Each try runs on its own slot and frees it when it ends: the sender claims only as many
deliveries as it has free slots, and claims again as soon as one frees, so a slow receiver
holds one slot (at most NARRATE_WEBHOOK_TIMEOUT, the try's deadline) and never the others'
deliveries (before, a claim's tries were awaited together: one tenant's dripping receiver
held every tenant's webhooks)."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery.signals import worker_ready, worker_shutdown

from service import wiring
from service.config import get_settings
from service.jobs.webhooks import Webhooks
from service.ports.webhooks import Delivery

log = logging.getLogger("narrate.webhooks")
PARALLEL = 8  # tries at once per worker (a slow receiver holds one, for webhook_timeout)


class Sender(threading.Thread):
    def __init__(self, hooks: Webhooks, poll: float, parallel: int = PARALLEL) -> None:
        super().__init__(name="narrate-webhooks", daemon=True)
        self.hooks = hooks
        self.poll = poll
        self.parallel = parallel
        self.busy = 0
        self.away = False  # the outbox was unreachable at the last claim
        self.freed = threading.Condition()
        self.stopping = threading.Event()
        self.pool = ThreadPoolExecutor(parallel, thread_name_prefix="narrate-webhook")

    def run(self) -> None:
        while not self.stopping.is_set():
            free = self._free()
            if not free:
                continue
            due = self._claim(free)
            for delivery in due:
                self._start(delivery)
            if not due:
                self.stopping.wait(self.poll)

    def _claim(self, free: int) -> list[Delivery]:
        """Up to ``free`` due deliveries; none while the outbox is unreachable, said once in
        one line when it goes and once when it is back (it logged a traceback every poll,
        four a second, for as long as Redis was down)."""
        try:
            due = self.hooks.claim(free)
        except Exception as exc:  # Redis away: try again after a pause
            if not self.away:
                log.warning("webhook sender: outbox unreachable, retrying: %s", exc)
            self.away = True
            return []
        if self.away:
            log.info("webhook sender: outbox reachable again")
            self.away = False
        return due

    def _free(self) -> int:
        """Free slots, after waiting (at most one poll) for one if all are busy."""
        with self.freed:
            if self.busy >= self.parallel:
                self.freed.wait(self.poll)
            return self.parallel - self.busy

    def _start(self, delivery: Delivery) -> None:
        with self.freed:
            self.busy += 1
        self.pool.submit(self._try, delivery)

    def _try(self, delivery: Delivery) -> None:
        try:
            self.hooks.attempt(delivery)
        except Exception:  # its record not written: the claim's lease hands it on
            log.exception("webhook sender: a try of %s was not recorded", delivery.id)
        finally:
            with self.freed:
                self.busy -= 1
                self.freed.notify()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)
        self.pool.shutdown(wait=False, cancel_futures=True)


_sender: Sender | None = None


@worker_ready.connect
def _start(sender: Any, **_: object) -> None:
    global _sender
    settings = get_settings()
    _sender = Sender(wiring.webhooks(settings), settings.webhook_poll)
    _sender.start()


@worker_shutdown.connect
def _stop(**_: object) -> None:
    if _sender is not None:
        _sender.stop()

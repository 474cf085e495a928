"""The fair-share dispatcher in each worker's main process (service/jobs/dispatch.py): a
thread that contends for the dispatch lease, so exactly one of the fleet's workers moves the
tenants' lanes into the queue and another takes over within NARRATE_DISPATCH_LEASE seconds
when that worker dies. Off with NARRATE_DISPATCH_IN_WORKER=0 (then run `narrate dispatch`)
or NARRATE_FAIR_SHARE=0."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery.signals import worker_ready, worker_shutdown

from service import wiring
from service.config import get_settings

log = logging.getLogger("narrate.dispatch")
_stop = threading.Event()
_thread: threading.Thread | None = None


@worker_ready.connect
def _start(sender: Any, **_: object) -> None:
    global _thread
    settings = get_settings()
    if not (settings.fair_share and settings.dispatch_in_worker):
        return
    from workers.celery_app import app  # (loaded: this module is imported at its end)

    loop = wiring.dispatch_loop(settings, f"{sender.hostname} {os.getpid()}", app)
    _thread = threading.Thread(target=loop.run, args=(_stop,), name="narrate-dispatch", daemon=True)
    _thread.start()


@worker_shutdown.connect
def _stop_dispatch(**_: object) -> None:
    _stop.set()
    if _thread is not None:
        _thread.join(timeout=5)

"""`narrate reconcile`: the periodic sweep that bounds every job's time to a terminal state."""

from __future__ import annotations

import logging
import time

from service.jobs import JobService

log = logging.getLogger("narrate.reconciler")


def run_forever(service: JobService, interval: float) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s reconciler %(message)s")
    while True:
        try:
            counts = service.reconcile()
            if any(counts.values()):
                log.info("%s", counts)
        except Exception:  # Redis down: try again next round
            log.exception("reconcile failed")
        time.sleep(interval)

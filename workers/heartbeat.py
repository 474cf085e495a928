"""Each worker's heartbeat: a thread in the worker's main process (the one that holds the
broker's messages) that writes a beat and the delivery tags it holds to Redis every
NARRATE_WORKER_HEARTBEAT seconds, and hands back what dead peers held. Started when the
worker is ready; on a clean shutdown its entry is removed."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from celery.signals import task_received, worker_ready, worker_shutdown
from celery.worker import state

from service import wiring
from service.config import get_settings
from service.jobs.fleet import FleetWatch
from service.ports import QUEUE

log = logging.getLogger("narrate.heartbeat")
RECENT = 5.0  # seconds a just-received tag is reported before Celery's own state lists it


class Heartbeat(threading.Thread):
    def __init__(self, watch: FleetWatch, interval: float) -> None:
        super().__init__(name="narrate-heartbeat", daemon=True)
        self.watch = watch
        self.interval = interval
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.recent: dict[str, float] = {}  # tag -> when received

    def received(self, tag: str) -> None:
        """A message just came in: report it now, not at the next beat."""
        self.recent[tag] = time.monotonic()
        self.wake.set()

    def held(self) -> set[str]:
        """The delivery tags of every message this worker holds (running or prefetched)."""
        tags = {
            str(tag)
            for request in list(state.requests.values())
            if (tag := getattr(request.message, "delivery_tag", None))
        }
        now = time.monotonic()
        for tag, at in list(self.recent.items()):
            if tag in tags or now - at > RECENT:
                self.recent.pop(tag, None)  # Celery's state has it, or it is long done
        return tags | set(self.recent)

    def run(self) -> None:
        try:
            self.watch.start()
        except Exception:  # Redis away: the beats below retry, the hand-back waits
            log.exception("could not hand back an earlier run's tasks")
        while not self.stopping.is_set():
            self.wake.clear()
            try:
                self.watch.tick(self.held())
            except Exception:  # Redis away: beat again next time
                log.exception("heartbeat failed")
            self.wake.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
        self.join(timeout=5)
        try:
            self.watch.stop()
        except Exception:  # Redis away: the entry goes dead and is handed back (empty)
            log.exception("could not remove this worker's heartbeat")


_beat: Heartbeat | None = None


@worker_ready.connect
def _start(sender: Any, **_: object) -> None:
    global _beat
    settings = get_settings()
    stores = wiring.build(settings).stores
    watch = FleetWatch(
        stores.fleet,
        stores.heads,
        QUEUE,
        str(sender.hostname),
        settings.worker_dead_after,
        storage=wiring.storage(settings).identity(),  # the API checks it serves from there
    )
    _beat = Heartbeat(watch, settings.worker_heartbeat)
    _beat.start()


@task_received.connect
def _received(request: Any, **_: object) -> None:
    tag = getattr(getattr(request, "message", None), "delivery_tag", None)
    if _beat is not None and tag:
        _beat.received(str(tag))


@worker_shutdown.connect
def _stop(**_: object) -> None:
    if _beat is not None:
        _beat.stop()

"""Thin tasks: take ids, call the job step, let Celery handle delivery. Each step is
idempotent (outputs go to deterministic paths by atomic rename; counters count once), so a
redelivery after a lost worker changes nothing."""

from __future__ import annotations

import logging
import time
from functools import lru_cache

from celery import Task
from celery.exceptions import Reject, SoftTimeLimitExceeded
from celery.signals import worker_process_init

from service import audio, wiring
from service.config import get_settings
from service.domain.errors import StoreUnavailable
from service.jobs import WorkerSteps
from service.ports import FINALIZE_TASK, SEGMENT_TASK
from workers.celery_app import app

log = logging.getLogger("narrate.worker")


@lru_cache(maxsize=1)
def steps() -> WorkerSteps:
    return wiring.worker_steps(get_settings(), app)


# A step that raises anything but StoreUnavailable (a bug, or a value no check caught) fails
# its job at once with the real error: a retry would only raise it again, and the job would
# otherwise sit "running" until the delivery cap ended it ~3 visibility timeouts later.


def handed_back(exc: StoreUnavailable) -> Reject:
    """The job store unavailable inside a step (Redis timed out, or refused a write: every
    Redis adapter, the edge guard's too, raises StoreUnavailable for it): the message goes
    back to the end of the queue and runs again. Raising the error itself would lose it: with
    acks_late and task_acks_on_failure_or_timeout off, Celery rejects a failed task's message
    without requeueing it, so it is dropped and the job sits "running". The pause first (one
    Redis timeout) keeps a Redis that keeps failing from being hammered by the same task."""
    log.warning("the job store is unavailable (%s): the task goes back to the queue", exc)
    time.sleep(get_settings().redis_timeout)
    return Reject(exc, requeue=True)


@worker_process_init.connect
def _warm(**_: object) -> None:
    """Build the steps (imports, catalog, engines, the word and pinyin tables, audio filters) as
    each pool process starts, not inside its first task's time limit."""
    steps()
    wiring.warm_speech(misses=True)
    audio.preload()


@app.task(name=SEGMENT_TASK, bind=True)
def segment(self: Task[..., None], job_id: str, index: int) -> None:
    try:
        steps().run_segment(job_id, index, str(self.request.hostname))
    except SoftTimeLimitExceeded:
        steps().timed_out(job_id, f"segment {index + 1}", index + 1)
    except StoreUnavailable as exc:
        raise handed_back(exc) from exc
    except Exception as exc:
        steps().crashed(job_id, f"segment {index + 1}", exc, index + 1)


@app.task(name=FINALIZE_TASK, bind=True)
def finalize(self: Task[..., None], job_id: str) -> None:
    try:
        steps().run_finalize(job_id, str(self.request.hostname))
    except SoftTimeLimitExceeded:
        steps().timed_out(job_id, "finalize")
    except StoreUnavailable as exc:
        raise handed_back(exc) from exc
    except Exception as exc:
        steps().crashed(job_id, "finalize", exc)

"""Thin tasks: take ids, call the job step, let Celery handle delivery. Each step is
idempotent (outputs go to deterministic paths by atomic rename; counters count once), so a
redelivery after a lost worker changes nothing."""

from __future__ import annotations

from functools import lru_cache

import redis
from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init

from service.adapters.queue import FINALIZE_TASK, SEGMENT_TASK
from service.adapters.segmenter import warm
from service.config import get_settings
from service.jobs import JobService, build_service
from workers.celery_app import app


@lru_cache(maxsize=1)
def jobs() -> JobService:
    return build_service(get_settings(), lambda name, args: app.send_task(name, args=args))


# A step that raises anything but a Redis error (a bug, or a value no check caught) fails
# its job at once with the real error: a retry would only raise it again, and the job would
# otherwise sit "running" until the delivery cap ended it ~3 visibility timeouts later.


@worker_process_init.connect
def _warm(**_: object) -> None:
    """Build the service (imports, catalog, engines, the word dictionary) as each pool
    process starts, not inside its first task's time limit."""
    jobs()
    warm()


def _timed_out(job_id: str, what: str) -> None:
    svc = jobs()
    job = svc.store.get(job_id)
    if job is not None:
        svc.fail(job, f"{what} timed out after {get_settings().task_soft_time_limit:g} s")


@app.task(name=SEGMENT_TASK, bind=True)
def segment(self: Task, job_id: str, index: int) -> None:
    try:
        jobs().run_segment(job_id, index, str(self.request.hostname))
    except SoftTimeLimitExceeded:
        _timed_out(job_id, f"segment {index + 1}")
    except redis.RedisError:
        raise  # the store is unreachable: the task stays unacked and comes back
    except Exception as exc:
        jobs().crashed(job_id, f"segment {index + 1}", exc)


@app.task(name=FINALIZE_TASK, bind=True)
def finalize(self: Task, job_id: str) -> None:
    try:
        jobs().run_finalize(job_id, str(self.request.hostname))
    except SoftTimeLimitExceeded:
        _timed_out(job_id, "finalize")
    except redis.RedisError:
        raise
    except Exception as exc:
        jobs().crashed(job_id, "finalize", exc)

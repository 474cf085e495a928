"""Jobs as the service runs them: submit (API side) and the two worker steps, segment and
finalize. The Celery tasks and the HTTP routes are thin wrappers over this module."""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from service.adapters.jobstore import Job, JobStore
from service.adapters.queue import FINALIZE_TASK, QUEUE, SEGMENT_TASK
from service.adapters.storage import LocalStorage, atomic_write
from service.config import Settings
from service.domain.errors import CanceledError, NarrateError
from service.domain.spec import JobSpec, RenderOptions
from service.pipeline import ARTIFACTS, Pipeline, Plan, SegmentResult
from service.ports import Storage

log = logging.getLogger("narrate.jobs")
Send = Callable[[str, list[Any]], None]
Encode = Callable[[str, list[Any]], str]  # a task as the bytes the broker's queue holds


class QueueUnavailable(Exception):
    """The broker could not take the job; nothing of it was kept."""


class JobService:
    def __init__(
        self,
        settings: Settings,
        store: JobStore,
        storage: Storage,
        pipeline: Pipeline,
        send: Send,
        encode: Encode,
    ) -> None:
        self.settings = settings
        self.store = store
        self.storage = storage
        self.pipeline = pipeline
        self.send = send
        self.encode = encode

    # -- API side -------------------------------------------------------------------------
    def new_id(self) -> str:
        return uuid.uuid4().hex

    def submit(
        self,
        tenant: str,
        job_id: str,
        spec: JobSpec,
        options: RenderOptions,
        video: Path | None,
        idem: tuple[str, str] | None = None,
        parent: str | None = None,
    ) -> tuple[Job, bool]:
        """Validate at the door, then store the record and one task per segment in one
        atomic step. Returns the job and whether it is new (False: an Idempotency-Key replay).

        QueueUnavailable means nothing was kept and nothing will run: the store's script
        refuses to run later than half the socket timeout after it was sent (by Redis's
        clock), so a call that timed out on a hung Redis cannot take effect when it resumes."""
        self._inject("submit_sleep")
        plan = self.pipeline.plan(spec, options, video)
        job = Job(
            id=job_id,
            tenant=tenant,
            status="queued",
            created=time.time(),
            updated=time.time(),
            spec=plan.spec.model_dump(mode="json"),
            options=options.model_dump(mode="json"),
            has_video=video is not None,
            segments_total=len(plan.spec.segments),
            warnings=plan.warnings,
            parent=parent,
        )
        messages = [self.encode(SEGMENT_TASK, [job.id, i]) for i in range(job.segments_total)]
        try:
            return self.store.create(job, idem, messages, QUEUE, self.settings.redis_timeout / 2)
        except redis.RedisError as exc:
            log.warning("job %s not stored: %s", job.id, exc)
            raise QueueUnavailable(str(exc)) from exc

    def reconcile(self, now: float | None = None) -> dict[str, int]:
        """Give every job a bounded time to a terminal state, and requeue what a crash lost.

        A job older than ``job_timeout`` fails ("timed out"). A queued or running job that has
        not moved for ``visibility_timeout`` (by then the broker would have redelivered any
        task still held, and the hard time limit has killed any task still running) gets its
        missing steps enqueued again; the steps are idempotent, so a duplicate is harmless."""
        now = time.time() if now is None else now
        counts = {"timed_out": 0, "requeued": 0}
        for job_id in self.store.active():
            job = self.store.get(job_id)
            if job is None or job.terminal:
                self.store.forget_active(job_id)
                continue
            if now - job.created > self.settings.job_timeout:
                self.fail(job, f"timed out: not finished within {self.settings.job_timeout:g} s")
                counts["timed_out"] += 1
            elif now - job.updated > self.settings.visibility_timeout:
                done = self.store.done_segments(job_id)
                missing = [i for i in range(job.segments_total) if i not in done]
                for i in missing:
                    self.send(SEGMENT_TASK, [job_id, i])
                if not missing:
                    self.send(FINALIZE_TASK, [job_id])
                self.store.update(job_id, requeued=now)
                counts["requeued"] += 1
                log.warning(
                    "job %s stalled since %.0f s: requeued %s",
                    job_id,
                    now - job.updated,
                    missing or "finalize",
                )
        return counts

    def cancel_or_delete(self, job: Job) -> str:
        """Cancel a queued or running job; delete a finished one with its artifacts."""
        if not job.terminal and self.store.advance(
            job.id, "canceled", error="canceled by the user"
        ):
            self._discard_work(job)  # a step still running stops at its next check
            return "canceled"
        self.storage.delete(job.tenant, job.id)
        self.store.discard(job)
        return "deleted"

    # -- worker side ----------------------------------------------------------------------
    def _plan(self, job: Job, with_video: bool = False) -> Plan:
        spec = JobSpec.model_validate(job.spec)
        options = RenderOptions.model_validate(job.options)
        video = (
            self.storage.input_video(job.tenant, job.id) if with_video and job.has_video else None
        )
        return self.pipeline.plan(spec, options, video)

    def _admit(self, job_id: str, task: str, what: str) -> Job | None:
        """Load the job for a task; None when there is nothing (more) to do. Caps deliveries:
        a task that keeps killing its worker fails the job instead of looping for ever."""
        job = self.store.get(job_id)
        if job is None:
            return None
        if job.terminal:
            if job.status in ("canceled", "failed"):
                self._discard_work(job)
            return None
        n = self.store.deliveries(job_id, task)
        if n > self.settings.max_deliveries:
            self.fail(
                job, f"{what} was started {n - 1} times and never finished (worker lost each time)"
            )
            return None
        return job

    def public(self, message: str) -> str:
        """A message fit for the client: no absolute server path (ffprobe and ffmpeg name the
        files they read), only what the client itself sent or can see."""
        roots = {str(self.settings.data_dir), str(self.settings.data_dir.resolve())}
        for root in sorted(roots, key=len, reverse=True):
            message = re.sub(re.escape(root) + r"[^\s:'\"]*", "the upload", message)
        return message

    def fail(self, job: Job, reason: str) -> None:
        reason = self.public(reason)
        if self.store.advance(job.id, "failed", error=reason):
            log.warning("job %s failed: %s", job.id, reason)
        self._discard_work(job)

    def crashed(self, job_id: str, what: str, exc: BaseException) -> None:
        """A step raised something that is not a narrate error (a bug, or a value no check
        caught): retrying cannot help, so the job fails now, with the real error."""
        job = self.store.get(job_id)
        if job is None or job.terminal:  # canceled or deleted under it: files went missing
            log.info("job %s ended while %s ran (%s)", job_id, what, type(exc).__name__)
            if job is not None:
                self._discard_work(job)
            return
        log.error("job %s: %s raised", job_id, what, exc_info=exc)
        self.fail(job, f"{what} failed: internal error: {type(exc).__name__}: {exc}")

    def _discard_work(self, job: Job) -> None:
        """Remove a job's intermediate files (segment audio, the staging directories of
        finalize runs that were killed); artifacts stay. A failed or canceled job keeps
        nothing at all: its directory goes (no artifacts, no upload, no empty folders)."""
        base = self.storage.job_dir(job.tenant, job.id)
        if self.store.status(job.id) in ("failed", "canceled"):
            shutil.rmtree(base, ignore_errors=True)
            return
        shutil.rmtree(base / "work", ignore_errors=True)
        for stale in base.glob(".staging-*"):
            shutil.rmtree(stale, ignore_errors=True)

    def _inject(self, name: str) -> None:
        if delay := self.settings.fault(name):
            time.sleep(float(delay))

    def _check_canceled(self, job_id: str) -> None:
        """Stop work on a job that was canceled, or failed by another step, meanwhile."""
        if self.store.status(job_id) in ("canceled", "failed"):
            raise CanceledError("the job was canceled")

    def run_segment(self, job_id: str, index: int, worker: str) -> None:
        job = self._admit(job_id, f"segment:{index}", f"segment {index + 1}")
        if job is None:
            return
        self.store.advance(job_id, "running", stage="synthesize")
        self.store.set_segment(
            job_id,
            index,
            state="running",
            worker=worker,
            pid=os.getpid(),
            started=time.time(),
            deliveries=self.store.delivered(job_id, f"segment:{index}"),
        )
        self._inject("segment_sleep")
        crash_on = self.settings.fault("crash_on")
        if crash_on and crash_on in job.spec["segments"][index]["text"]:
            os._exit(77)  # test-only: a task that kills its worker every time
        bug_on = self.settings.fault("bug_on")
        if bug_on and bug_on in job.spec["segments"][index]["text"]:
            raise OverflowError("math range error (injected)")  # test-only: a plain bug
        work = self.storage.work_dir(job.tenant, job_id)
        try:
            result = self.pipeline.render_segment(self._plan(job), index, work)
            self._check_canceled(job_id)
        except CanceledError:
            self._discard_work(job)
            return
        except NarrateError as exc:
            self.fail(job, f"segment {index + 1}: {exc}")
            return
        atomic_write(work / f"segment-{index:03d}.json", result.to_json().encode())
        self.store.set_segment(
            job_id,
            index,
            state="done",
            engine=result.engine,
            voice=result.voice,
            native_rate=result.native_rate,
            stretch_ratio=result.stretch_ratio,
            finished=time.time(),
            warnings=result.warnings,
            tts_calls=sum(result.tts_calls.values()),  # 0: every request hit the TTS cache
        )
        for stage, secs in result.timings.items():
            self.store.observe_stage(stage, secs)
        for engine, n in result.tts_calls.items():
            self.store.count_tts(engine, n)
        if self.store.segment_done(job_id, index):
            self.send(FINALIZE_TASK, [job_id])

    def run_finalize(self, job_id: str, worker: str) -> None:
        job = self._admit(job_id, "finalize", "finalize")
        if job is None:
            return
        work = self.storage.work_dir(job.tenant, job_id)
        staged = self.storage.staging(job.tenant, job_id)
        self.store.update(
            job_id, stage="finalize", finalize_worker=worker, finalize_pid=os.getpid()
        )
        self._inject("finalize_sleep")

        def progress(fraction: float, stage: str) -> None:
            self._check_canceled(job_id)
            self.store.update(job_id, stage=stage, stage_progress=round(min(fraction, 0.99), 4))

        try:
            results = [
                SegmentResult.from_json(
                    (work / f"segment-{i:03d}.json").read_text(encoding="utf-8")
                )
                for i in range(job.segments_total)
            ]
            plan = self._plan(job, with_video=True)
            video = self.storage.input_video(job.tenant, job_id) if job.has_video else None
            rendered = self.pipeline.finalize(plan, results, work, staged, video, progress)
            self._check_canceled(job_id)
            published = self.storage.publish(job.tenant, job_id, staged, ARTIFACTS)
            timings = {**rendered.timings}
            for stage in ("subtitles", "loudness", "mux"):
                if stage in timings:
                    self.store.observe_stage(stage, timings[stage])
            self.store.advance(
                job_id,
                "succeeded",
                artifacts=published,
                warnings=rendered.manifest["warnings"],
                timings=timings,
                stage="done",
                stage_progress=1.0,
            )
            self._discard_work(job)
        except CanceledError:
            self._discard_work(job)
        except NarrateError as exc:
            self.fail(job, str(exc))
        except FileNotFoundError as exc:
            self.fail(job, f"a segment's output is missing: {exc.filename}")
        finally:
            shutil.rmtree(staged, ignore_errors=True)


def build_service(
    settings: Settings, send: Send | None = None, encode: Encode | None = None
) -> JobService:
    """The job service wired to Redis, local storage and this machine's pipeline. ``send``
    defaults to a Celery client on the broker (the API and the reconciler); the workers pass
    their own app's. ``encode`` builds the queue messages a submit stores with the record."""
    from service.adapters.queue import make_celery, task_message
    from service.pipeline import default_pipeline

    celery = make_celery(settings)
    if send is None:

        def send(name: str, args: list[Any]) -> None:
            celery.send_task(name, args=args)

    if encode is None:

        def encode(name: str, args: list[Any]) -> str:
            return task_message(celery, name, args)

    return JobService(
        settings,
        JobStore.from_url(settings.broker_url, settings.redis_timeout, settings.redis_timeout),
        LocalStorage(settings.artifacts_dir),
        default_pipeline(settings),
        send,
        encode,
    )

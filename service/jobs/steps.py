"""The two worker steps, segment and finalize, as the Celery tasks run them. Each is
idempotent: outputs go to deterministic names by atomic rename, counters count once, so a
redelivery after a lost worker changes nothing."""

from __future__ import annotations

import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from service import logs
from service.config import Settings
from service.domain.errors import CanceledError, NarrateError, StoreUnavailable
from service.domain.job import Job, JobStatus
from service.domain.job_changes import JobUpdate, SegmentUpdate, Transition
from service.domain.notices import Notice
from service.jobs.lifecycle import Lifecycle
from service.jobs.parts import FirstInLine
from service.pipeline import (
    Handoff,
    JobPlan,
    Pipeline,
    Rendered,
    SegmentResult,
    staged_artifacts,
)
from service.ports import (
    FINALIZE_TASK,
    Artifacts,
    Deliveries,
    JobFiles,
    JobRecords,
    JobTransitions,
    Metrics,
    Queue,
    SegmentLedger,
    Workspace,
)

log = logging.getLogger("narrate.jobs")
FINALIZE_STAGES = ("subtitles", "loudness", "mux")  # observed here; segment stages per segment


def result_name(index: int) -> str:
    return f"segment-{index:03d}.json"


@dataclass(frozen=True, slots=True)
class WorkedJobs:
    """The job store's roles a worker's steps work through."""

    records: JobRecords
    transitions: JobTransitions
    ledger: SegmentLedger
    deliveries: Deliveries


@dataclass(frozen=True, slots=True)
class WorkerSteps:
    settings: Settings
    jobs: WorkedJobs
    files: JobFiles  # the job's inputs and the segments' results between steps
    artifacts: Artifacts  # where finalize publishes
    pipeline: Pipeline
    queue: Queue
    metrics: Metrics
    lifecycle: Lifecycle
    first: FirstInLine  # where a started job's finalize goes: first in its line

    def _plan(self, job: Job) -> JobPlan:
        """The plan the job was given at the door; one the schema upgrade made of an older
        record's spec and options alone (JobPlan.complete) is planned again, its video
        probed in finalize."""
        if job.plan.complete:
            return job.plan
        return self.pipeline.door.plan(job.plan.spec, job.plan.options)

    def _admit(self, job_id: str, task: str, what: str, segment: int | None = None) -> Job | None:
        """Load the job for a task; None when there is nothing (more) to do. Caps deliveries:
        a task that keeps killing its worker fails the job instead of looping for ever."""
        job = self.jobs.records.get(job_id)
        if job is None:
            return None
        if job.terminal:
            self.lifecycle.discard_work(job)  # (a succeeded job's: its intermediate files)
            # A step redelivered because its worker died after ending the job, before its
            # events were written: written now (once: the outbox dedupes by event id).
            self.lifecycle.ended(job_id)
            return None
        n = self.jobs.deliveries.deliveries(job_id, task)
        if n == 0:  # deleted meanwhile
            return None
        if n > self.settings.max_deliveries:
            said = f"{what} was started {n - 1} times and never finished (worker lost each time)"
            self.lifecycle.fail(job, Notice(code="worker.lost", message=said, segment=segment))
            return None
        return job

    # -- when a step ends badly --------------------------------------------------------------
    def crashed(
        self, job_id: str, what: str, exc: BaseException, segment: int | None = None
    ) -> None:
        """A step raised something that is not a narrate error (a bug, or a value no check
        caught): retrying cannot help, so the job fails now, with the real error."""
        job = self.jobs.records.get(job_id)
        if job is None or job.terminal:  # canceled or deleted under it: files went missing
            log.info("job %s ended while %s ran (%s)", job_id, what, type(exc).__name__)
            if job is not None:
                self.lifecycle.discard_work(job)
            return
        log.error("job %s: %s raised", job_id, what, exc_info=exc)
        said = f"{what} failed: internal error: {type(exc).__name__}: {exc}"
        self.lifecycle.fail(job, Notice(code="internal", message=said, segment=segment))

    def timed_out(self, job_id: str, what: str, segment: int | None = None) -> None:
        """The step ran past the soft time limit."""
        job = self.jobs.records.get(job_id)
        if job is not None:
            said = f"{what} timed out after {self.settings.task_soft_time_limit:g} s"
            self.lifecycle.fail(job, Notice(code="timeout", message=said, segment=segment))

    # -- segment -----------------------------------------------------------------------------
    def run_segment(self, job_id: str, index: int, worker: str) -> None:
        job = self._admit(job_id, f"segment:{index}", f"segment {index + 1}", index + 1)
        if job is None:
            return
        logs.bind(job=job_id, tenant=job.tenant, segment=index + 1)
        if self.jobs.transitions.advance(job_id, Transition(JobStatus.RUNNING, stage="synthesize")):
            self.lifecycle.stage(job, "synthesize")
        deliveries = self.jobs.deliveries.delivered(job_id, f"segment:{index}")
        if index == 0 and deliveries == 1:  # the job's first step (lanes keep segment order)
            self.metrics.observe_wait(job.tenant, max(0.0, time.time() - job.created))
        running = SegmentUpdate(
            state="running",
            worker=worker,
            pid=os.getpid(),
            started=time.time(),
            deliveries=deliveries,
        )
        self.jobs.ledger.set_segment(job_id, index, running)
        work = self.files.workspace(job.tenant, job_id)
        try:
            result = self.pipeline.render_segment(self._plan(job), index, work)
            self.lifecycle.check_canceled(job_id)
            self.files.put_work(job.tenant, job_id, result_name(index), result.to_json().encode())
        except CanceledError:
            self.lifecycle.discard_work(job)
            return
        except StoreUnavailable:
            raise  # the task hands its message back
        except NarrateError as exc:
            said = f"segment {index + 1}: {exc}"
            self.lifecycle.fail(job, Notice(code=exc.code, message=said, segment=index + 1))
            return
        except Exception:
            self.lifecycle.tidy_if_gone(job)  # deleted under it: its files went missing
            raise
        finally:
            work.close()
        self._record_segment(job_id, result)
        if self.jobs.ledger.segment_done(job_id, index):
            # At the head of the tenant's lane (or queue): a job that has started finishes
            # before the backlog behind it (and within its job_timeout, however long that is).
            self.first.enqueue_first(job.tenant, self.queue.encode(FINALIZE_TASK, [job_id]))

    def _record_segment(self, job_id: str, result: SegmentResult) -> None:
        done = SegmentUpdate(
            state="done",
            engine=result.engine,
            voice=result.voice,
            native_rate=result.native_rate,
            stretch_ratio=result.stretch_ratio,
            finished=time.time(),
            warnings=list(result.warnings),
            tts_calls=sum(result.tts_calls.values()),  # 0: every request hit the TTS cache
        )
        self.jobs.ledger.set_segment(job_id, result.index, done)
        for stage, secs in result.timings.items():
            self.metrics.observe_stage(stage, secs)
        for engine, n in result.tts_calls.items():
            self.metrics.count_tts(engine, n)

    # -- finalize ----------------------------------------------------------------------------
    def run_finalize(self, job_id: str, worker: str) -> None:
        job = self._admit(job_id, "finalize", "finalize")
        if job is None:
            return
        logs.bind(job=job_id, tenant=job.tenant, segment=None)
        finalizing = JobUpdate(stage="finalize", finalize_worker=worker, finalize_pid=os.getpid())
        self.jobs.transitions.update(job_id, finalizing)
        self.lifecycle.stage(job, "finalize")
        try:
            staged = self.artifacts.staging(job.tenant, job_id)
        except NarrateError as exc:
            self.lifecycle.fail(job, exc.notice())
            return
        work = self.files.workspace(job.tenant, job_id)
        try:
            rendered = self._finalize(job, staged, work)
            published = self.artifacts.publish(job.tenant, job_id, staged, staged_artifacts(staged))
            self._succeeded(job, rendered, published)
        except CanceledError:
            self.lifecycle.discard_work(job)
        except StoreUnavailable:
            raise  # the task hands its message back
        except NarrateError as exc:
            self.lifecycle.fail(job, exc.notice())
        except FileNotFoundError as exc:
            said = f"a segment's output is missing: {exc.filename}"
            self.lifecycle.fail(job, Notice(code="work.missing", message=said))
        except Exception:
            self.lifecycle.tidy_if_gone(job)
            raise
        finally:
            work.close()
            shutil.rmtree(staged, ignore_errors=True)

    def _finalize(self, job: Job, staged: Path, work: Workspace) -> Rendered:
        def progress(fraction: float, stage: str) -> None:
            self.lifecycle.check_canceled(job.id)
            at = JobUpdate(stage=stage, stage_progress=round(min(fraction, 0.99), 4))
            self.jobs.transitions.update(job.id, at)

        results = [
            SegmentResult.from_json(
                self.files.get_work(job.tenant, job.id, result_name(i)).decode("utf-8")
            )
            for i in range(job.segments_total)
        ]
        plan = self._plan(job)
        video = work.input("video") if job.has_video else None
        if video is not None and plan.video is None:  # an older record's plan
            plan = plan.model_copy(update={"video": self.pipeline.media.probe(video)})
        music = work.input("music") if job.has_music else None

        def check() -> None:  # while ffmpeg runs: a canceled job's encode stops within 0.25 s
            self.lifecycle.check_canceled(job.id)

        rendered = self.pipeline.finalize(
            Handoff(plan, results, work, staged, video, progress, music, check)
        )
        self.lifecycle.check_canceled(job.id)
        return rendered

    def _succeeded(self, job: Job, rendered: Rendered, published: list[str]) -> None:
        timings = {**rendered.timings}
        for stage in FINALIZE_STAGES:
            if stage in timings:
                self.metrics.observe_stage(stage, timings[stage])
        succeeded = Transition(
            JobStatus.SUCCEEDED,
            artifacts=published,
            warnings=list(rendered.manifest.warnings),
            timings=timings,
            stage="done",
            stage_progress=1.0,
        )
        # Intermediate files go first (this run's staging, a killed run's, the segments'):
        # a client that sees "succeeded" finds only the artifacts.
        self.lifecycle.discard_work(job)
        if self.jobs.transitions.advance(job.id, succeeded):
            self.lifecycle.ended(job.id)
        else:  # canceled or deleted meanwhile: it keeps nothing
            self.lifecycle.discard_work(job)

"""The composition root: the one place that chooses adapters and wires them into the
pipeline and the job services. ``build(settings)`` opens the backend NARRATE_REDIS_URL
names (service/adapters/backend.py: Redis, or ``memory://``) and wires every part on it:
the API, the workers, the reconciler, the CLI and the fast test tier each ask it for what
they run; nothing else constructs an adapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from service.adapters.asr import WhisperRecogniser, fold_simplified
from service.adapters.ffmpeg.media import FfmpegMedia
from service.adapters.files.catalog import load_catalog
from service.adapters.files.styles import StylesFile
from service.adapters.files.timeline import OtioTimelines
from service.adapters.storage.local import LocalStorage, LocalWork
from service.adapters.text.hant import OpenccConverter
from service.adapters.text.pinyin import load_lexicon, speech_tools, warm
from service.adapters.text.segmenter import tagged_words
from service.adapters.tts.cache import CachedEngine
from service.adapters.tts.edge import EdgeConfig, EdgeEngine
from service.adapters.tts.espeak import EspeakEngine
from service.adapters.tts.guard import Guard, LocalGuard
from service.config import Settings
from service.pipeline import Pipeline
from service.ports import (
    PresetStore,
    Queue,
    StreamEncoder,
    TtsEngine,
)
from service.ports.dispatch import Lanes
from service.ports.stores import Stores
from service.voicepacks import kokoro, zh_baker

if TYPE_CHECKING:
    from celery import Celery

    from service.adapters.storage.s3 import S3Storage
    from service.jobs import JobService, Lifecycle, Reconciler, WorkerSteps
    from service.jobs.batches import BatchService
    from service.jobs.dispatch import Dispatcher, DispatchLoop
    from service.jobs.keys import KeyStore
    from service.jobs.presets import Presets
    from service.jobs.previews import StylePreviews
    from service.jobs.quotas import QuotaGate
    from service.jobs.retention import Sweeper
    from service.jobs.speech import SpeechDesk
    from service.jobs.webhooks import Webhooks

# Redis, Celery and the job machinery (~0.6 s of CPU to import) load in the functions that build
# the service's parts: `narrate render` builds only the pipeline and never pays for them.


def guard(settings: Settings, use_redis: bool | None = None) -> Guard:
    """edge-tts's connection cap and breaker: fleet-wide in Redis when a Redis is configured
    (the service), in-process otherwise (the one-process CLI, ``memory://``)."""
    from service.adapters.backend import in_memory

    if (settings.redis_url and not in_memory(settings)) if use_redis is None else use_redis:
        from service.adapters.redis import url as redis_url
        from service.adapters.tts.guard import RedisGuard

        timeout = settings.redis_timeout
        client = redis_url.client(settings.broker_url, timeout, timeout)
        return RedisGuard(
            client,
            "edge",
            settings.edge_max_connections,
            settings.edge_breaker_failures,
            settings.edge_breaker_cooldown,
        )
    return LocalGuard(
        settings.edge_max_connections,
        settings.edge_breaker_failures,
        settings.edge_breaker_cooldown,
    )


def engines(
    settings: Settings,
    use_redis: bool | None = None,
    files: LocalStorage | S3Storage | None = None,
) -> dict[str, TtsEngine]:
    """espeak-ng always, edge-tts too; kokoro once its pack is installed in the data dir (the
    set-up installs it), the neural fastspeech2 voice once its pack is (opt-in:
    non-commercial licence); each behind the shared TTS cache unless it is off (kept in
    ``files``, the service's storage, when it has one: one client, not a second)."""
    edge = EdgeEngine(
        EdgeConfig(
            wss_url=settings.edge_wss_url,
            connect_timeout=settings.edge_connect_timeout,
            receive_timeout=settings.edge_receive_timeout,
            attempts=settings.edge_attempts,
            backoff=settings.edge_backoff,
            ffmpeg=settings.ffmpeg,
            decode_timeout=settings.decode_timeout,
        ),
        guard(settings, use_redis),
    )
    espeak = EspeakEngine(settings.espeak, settings.espeak_timeout, tagged_words)
    found: list[TtsEngine] = [espeak, edge]
    packed = kokoro.installed(settings.data_dir)
    if packed is not None:
        from service.adapters.tts.kokoro import KokoroEngine  # onnxruntime: lazy

        # the model loads on first use
        found.append(KokoroEngine(packed, settings.espeak, settings.kokoro_threads))
    pack = zh_baker.installed(settings.data_dir)
    if pack is not None:
        from service.adapters.tts.fastspeech2 import FastSpeech2Engine  # onnxruntime: lazy

        found.append(FastSpeech2Engine(pack, english=espeak))  # models load on first use
    if settings.tts_cache:
        cache = (files or storage(settings)).cache()
        return {e.name: CachedEngine(e, cache) for e in found}
    return {e.name: e for e in found}


def warm_speech(misses: bool = False) -> None:
    """Open the word index and the pinyin readings now (a worker, as its process starts)."""
    warm(misses)


def pipeline(
    settings: Settings,
    media: FfmpegMedia | None = None,
    files: LocalStorage | S3Storage | None = None,
) -> Pipeline:
    """The pipeline on this machine's adapters (the speech front-end's tools load on first
    use; the TTS cache in ``files``, if given, else in a storage of its own)."""
    lexicons = settings.voices_file.parent / "lexicon"
    return Pipeline(
        settings,
        engines(settings, files=files),
        media or FfmpegMedia(settings),
        load_catalog(settings.voices_file),
        tagged_words,
        speech=speech_tools,
        lexicons=lambda language: load_lexicon(lexicons / f"{language}.tsv"),
        converter=OpenccConverter(),
        recogniser=WhisperRecogniser(),  # loaded on the first segment it transcribes
        fold=fold_simplified,
        styles=StylesFile(settings),
        timelines=OtioTimelines(),
        scratch=LocalWork(),
    )


def storage(settings: Settings) -> LocalStorage | S3Storage:
    """Local directories by default; an S3-compatible store for NARRATE_STORAGE_URL=s3://."""
    if not settings.storage_url:
        return LocalStorage(settings.artifacts_dir, settings.cache_dir)
    from service.adapters.storage.s3 import S3Storage  # boto3 only where it is used
    from service.adapters.storage.s3client import S3Objects, parse_url

    bucket, prefix = parse_url(settings.storage_url)
    return S3Storage(S3Objects(settings, bucket), prefix, settings.scratch_dir)


def presets(settings: Settings, store: PresetStore | None = None) -> Presets:
    """The shipped job presets, and each tenant's saved ones in ``store`` (None: the CLI's
    shipped ones alone)."""
    from service.adapters.files.presets import load_presets
    from service.jobs.presets import Presets

    return Presets(load_presets(settings), store)


def celery(settings: Settings) -> Celery:
    from service.adapters.redis.queue import make_celery

    return make_celery(settings)


def build(settings: Settings, app: Celery | None = None, queue: Queue | None = None) -> Built:
    """The service's parts on the backend NARRATE_REDIS_URL names (``memory://``: every
    store and the queue in this process, tasks running when the queue is drained); ``app``:
    a worker's own Celery app, ``queue``: another queue (a test's)."""
    from service.adapters.backend import open_stores

    stores = open_stores(settings, app)
    if queue is not None:
        stores = replace(stores, queue=queue)
    return Built(settings, stores, storage(settings))


class Built:
    """What the API, the workers, the reconciler and the CLI run, each part built once on
    one set of stores (one client), when first asked for."""

    def __init__(self, settings: Settings, stores: Stores, files: LocalStorage | S3Storage) -> None:
        self.settings = settings
        self.stores = stores
        self.storage = files
        from service.adapters.memory.queue import MemoryQueue

        if isinstance(stores.queue, MemoryQueue) and self.lanes is not None:
            # no dispatcher thread in memory: the drain dispatches when the queue is empty
            stores.queue.refill = self.dispatcher.tick

    @cached_property
    def pipeline(self) -> Pipeline:
        return pipeline(self.settings, files=self.storage)

    @cached_property
    def lanes(self) -> Lanes | None:
        """The tenants' lanes (None without fair share)."""
        return self.stores.lanes if self.settings.fair_share else None

    @cached_property
    def keys(self) -> KeyStore:
        """The tenants' keys, quotas and weights, shared by the fleet; an earlier version's
        ``keys.json`` is imported once."""
        from service.jobs.keys import KeyStore

        return KeyStore(self.stores.tenant_keys, self.settings.keys_file)

    @cached_property
    def quotas(self) -> QuotaGate:
        """The tenants' quotas: the settings, or what the tenant's key sets."""
        from service.jobs.quotas import QuotaGate

        return QuotaGate(self.settings, self.stores.quotas, self.keys.limits)

    @cached_property
    def webhooks(self) -> Webhooks:
        """Endpoints and the outbox in the stores, sent over httpcore."""
        from service.adapters.http.webhooks import HttpSender
        from service.jobs.webhooks import Webhooks

        s = self.settings
        sender = HttpSender(s.webhook_timeout, s.webhook_allow_private)
        st = self.stores
        return Webhooks(s, st.webhook_endpoints, st.outbox, sender, self.storage)

    @cached_property
    def lifecycle(self) -> Lifecycle:
        from service.jobs import Lifecycle
        from service.jobs.batch_progress import BatchProgress

        st = self.stores
        progress = BatchProgress(st.records, st.batches, st.batch_events, self.webhooks)
        return Lifecycle(
            self.settings, st.records, st.transitions, self.storage, self.webhooks, progress
        )

    @cached_property
    def dispatcher(self) -> Dispatcher:
        from service.jobs.dispatch import Dispatcher

        st, gate = self.stores, self.quotas
        return Dispatcher(self.settings, st.lanes, st.queue, st.records, gate.limits, gate.running)

    def dispatch_loop(self, holder: str) -> DispatchLoop:
        """The fair-share dispatcher under its lease (a worker's thread; `narrate dispatch`)."""
        from service.jobs.dispatch import DispatchLoop

        return DispatchLoop(self.dispatcher, self.stores.lease, holder)

    @cached_property
    def job_service(self) -> JobService:
        """What the API runs on."""
        from service.jobs import JobService
        from service.jobs.lexicons import Lexicons
        from service.jobs.service import ServedJobs

        st = self.stores
        found = ServedJobs(st.records, st.transitions, st.events, st.fleet, st.metrics, st.counts)
        return JobService(
            self.settings,
            found,
            self.storage,
            self.storage,
            self.pipeline,
            st.queue,
            self.lifecycle,
            presets(self.settings, st.presets),
            quotas=self.quotas,
            lanes=self.lanes,
            lexicons=Lexicons(st.lexicons),
            keys=self.keys,
        )

    @cached_property
    def worker_steps(self) -> WorkerSteps:
        """What a worker process runs."""
        from service.jobs import WorkerSteps
        from service.jobs.parts import FirstInLine
        from service.jobs.steps import WorkedJobs

        st = self.stores
        found = WorkedJobs(st.records, st.transitions, st.ledger, st.deliveries)
        first = FirstInLine(self.lanes, st.heads, st.queue.name)
        files = self.storage  # one adapter: the job's files and its artifacts
        parts = (files, files, self.pipeline, st.queue, st.metrics, self.lifecycle, first)
        return WorkerSteps(self.settings, found, *parts)

    @cached_property
    def sweeper(self) -> Sweeper:
        """The retention sweep (the reconciler's, and `narrate gc`)."""
        from service.jobs.retention import Sweeper

        return Sweeper(self.settings, self.stores.records, self.stores.sweep, self.storage)

    @cached_property
    def reconciler(self) -> Reconciler:
        from service.jobs import Reconciler
        from service.jobs.reconcile import ReconciledJobs

        st = self.stores
        found = ReconciledJobs(st.records, st.active, st.ledger, st.transitions, st.heads)
        return Reconciler(self.settings, found, st.queue, self.lifecycle, self.sweeper, self.lanes)

    @cached_property
    def batch_service(self) -> BatchService:
        from service.jobs.batches import BatchService

        return BatchService(self.job_service, self.stores.batches)

    @cached_property
    def style_previews(self) -> StylePreviews:
        """The style stills (service/jobs/previews.py): ffmpeg's libass, the styles file,
        the jobs' storage."""
        from service.adapters.ffmpeg.stills import FfmpegStills
        from service.adapters.files.styles import styles_data
        from service.jobs.previews import StylePreviews

        s = self.settings
        return StylePreviews(lambda: styles_data(s), FfmpegStills(s), self.storage, s.font_name)

    @cached_property
    def speech_desk(self) -> SpeechDesk:
        """Speech on request (POST /v1/audio/speech, the MCP server's tools): the API's own
        pipeline (engines behind the shared TTS cache) and the tenants' quotas."""
        from service.jobs.speech import SpeechDesk

        s, jobs = self.settings, self.job_service
        return SpeechDesk(
            jobs.pipeline, jobs.quotas, s.speech_concurrency, s.speech_wait, jobs.lexicons
        )


# The entry points' own shorthands: each builds the parts it names on the configured backend.
def job_service(settings: Settings, jobs_queue: Queue | None = None) -> JobService:
    return build(settings, queue=jobs_queue).job_service


def worker_steps(settings: Settings, app: Celery) -> WorkerSteps:
    """What a worker process runs; ``app`` is the worker's own Celery app."""
    return build(settings, app).worker_steps


def reconciler(settings: Settings, jobs_queue: Queue | None = None) -> Reconciler:
    return build(settings, queue=jobs_queue).reconciler


def sweeper(settings: Settings) -> Sweeper:
    """The retention sweep, for `narrate gc` (the reconciler holds its own)."""
    return build(settings).sweeper


def dispatch_loop(settings: Settings, holder: str, app: Celery | None = None) -> DispatchLoop:
    return build(settings, app).dispatch_loop(holder)


def keys(settings: Settings) -> KeyStore:
    return build(settings).keys


def webhooks(settings: Settings) -> Webhooks:
    return build(settings).webhooks


def run_task(steps: WorkerSteps, worker: str = "memory") -> Callable[[str, list[Any]], None]:
    """What a worker does with a task by name: the Celery tasks' routing, without Celery."""
    from service.ports import FINALIZE_TASK, SEGMENT_TASK

    def run(name: str, args: list[Any]) -> None:
        if name == SEGMENT_TASK:
            steps.run_segment(args[0], int(args[1]), worker)
        elif name == FINALIZE_TASK:
            steps.run_finalize(args[0], worker)
        else:
            raise ValueError(f"unknown task {name!r}")

    return run


def stream_encoder(settings: Settings) -> StreamEncoder:
    from service.adapters.ffmpeg.stream_encode import FfmpegStreamEncoder

    return FfmpegStreamEncoder(settings.ffmpeg, settings.ffmpeg_timeout)

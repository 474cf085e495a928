"""The composition root: the one place that chooses adapters and wires them into the
pipeline and the job services. The API, the workers, the reconciler and the CLI each ask
here for what they run; nothing else constructs an adapter."""

from __future__ import annotations

from collections.abc import Callable
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
from service.ports import QUEUE, PresetStore, Quotas, Storage, StreamEncoder, TtsEngine
from service.voicepacks import kokoro, zh_baker

if TYPE_CHECKING:
    from celery import Celery

    from service.adapters.memory.queue import MemoryQueue
    from service.adapters.redis.jobstore import JobStore
    from service.adapters.redis.queue import CeleryQueue
    from service.jobs import JobService, Reconciler, WorkerSteps
    from service.jobs.batches import BatchService
    from service.jobs.dispatch import DispatchLoop
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
    (the service), in-process otherwise (the one-process CLI)."""
    if settings.redis_url if use_redis is None else use_redis:
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


def engines(settings: Settings, use_redis: bool | None = None) -> dict[str, TtsEngine]:
    """espeak-ng always, edge-tts too; kokoro once its pack is installed in the data dir (the
    set-up installs it), the neural fastspeech2 voice once its pack is (opt-in:
    non-commercial licence); each behind the shared TTS cache unless it is off."""
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
        cache = storage(settings).cache()
        return {e.name: CachedEngine(e, cache) for e in found}
    return {e.name: e for e in found}


def warm_speech(misses: bool = False) -> None:
    """Open the word index and the pinyin readings now (a worker, as its process starts)."""
    warm(misses)


def pipeline(settings: Settings, media: FfmpegMedia | None = None) -> Pipeline:
    """The pipeline on this machine's adapters (the speech front-end's tools load on first
    use)."""
    lexicons = settings.voices_file.parent / "lexicon"
    return Pipeline(
        settings,
        engines(settings),
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


def job_store(settings: Settings) -> JobStore:
    """Every call gives up after ``redis_timeout``: a hung Redis costs a request that long."""
    from service.adapters.redis.jobstore import JobStore

    return JobStore.from_url(settings.broker_url, settings.redis_timeout, settings.redis_timeout)


def storage(settings: Settings) -> Storage:
    """Local directories by default; an S3-compatible store for NARRATE_STORAGE_URL=s3://."""
    if not settings.storage_url:
        return LocalStorage(settings.artifacts_dir, settings.cache_dir)
    from service.adapters.storage.s3 import S3Storage  # boto3 only where it is used
    from service.adapters.storage.s3client import S3Objects, parse_url

    bucket, prefix = parse_url(settings.storage_url)
    return S3Storage(S3Objects(settings, bucket), prefix, settings.scratch_dir)


def celery(settings: Settings) -> Celery:
    from service.adapters.redis.queue import make_celery

    return make_celery(settings)


def queue(settings: Settings, app: Celery | None = None) -> CeleryQueue:
    from service.adapters.redis.queue import CeleryQueue

    return CeleryQueue(app or celery(settings))


def presets(settings: Settings, store: PresetStore | None = None) -> Presets:
    """The shipped job presets, and each tenant's saved ones in ``store`` (None: the CLI's
    shipped ones alone)."""
    from service.adapters.files.presets import load_presets
    from service.jobs.presets import Presets

    return Presets(load_presets(settings), store)


def keys(settings: Settings, client: Any = None) -> KeyStore:
    """The tenants' keys, quotas and weights in Redis (``client``: the job store's), shared
    by the fleet; an earlier version's ``keys.json`` is imported once."""
    from service.adapters.redis.tenant_keys import RedisTenantKeys
    from service.jobs.keys import KeyStore

    return KeyStore(RedisTenantKeys(client or job_store(settings).r), settings.keys_file)


def webhooks(settings: Settings, client: Any, files: Storage | None = None) -> Webhooks:
    """Endpoints and the outbox in Redis (``client``: the job store's), sent over httpcore."""
    from service.adapters.http.webhooks import HttpSender
    from service.adapters.redis.webhooks import RedisWebhooks
    from service.jobs.webhooks import Webhooks

    sender = HttpSender(settings.webhook_timeout, settings.webhook_allow_private)
    return Webhooks(settings, RedisWebhooks(client), sender, files or storage(settings))


def quota_gate(settings: Settings, port: Quotas, tenants: KeyStore | None = None) -> QuotaGate:
    """The tenants' quotas: the settings, or what the tenant's key sets (in ``tenants``)."""
    from service.jobs.quotas import QuotaGate

    return QuotaGate(settings, port, (tenants or keys(settings)).limits)


def shared(settings: Settings, store: JobStore, files: Storage) -> dict[str, Any]:
    """What the API, the workers and the reconciler share on the job store's Redis: the
    webhooks, the tenants' lanes (None without fair share) and the batches' progress."""
    from service.adapters.redis.batch_events import RedisBatchEvents
    from service.adapters.redis.batches import RedisBatches
    from service.adapters.redis.lanes import RedisLanes
    from service.jobs.batch_progress import BatchProgress

    hooks = webhooks(settings, store.r, files)
    keep = (settings.keep_jobs_days + 1) * 86400  # a batch outlives its jobs by a day
    found = BatchProgress(store, RedisBatches(store.r, keep), RedisBatchEvents(store.r), hooks)
    fair = RedisLanes(store.r, QUEUE) if settings.fair_share else None
    return {"webhooks": hooks, "lanes": fair, "progress": found}


def dispatch_loop(settings: Settings, holder: str, app: Celery | None = None) -> DispatchLoop:
    """The fair-share dispatcher under its Redis lease (a worker's thread, on the worker's
    own Celery ``app``; `narrate dispatch`)."""
    from service.adapters.redis.lanes import RedisLanes, RedisLease
    from service.adapters.redis.quotas import RedisQuotas
    from service.jobs.dispatch import Dispatcher, DispatchLoop

    store = job_store(settings)
    gate = quota_gate(settings, RedisQuotas(store.r), keys(settings, store.r))
    found = RedisLanes(store.r, QUEUE)
    tasks = queue(settings, app)
    dispatcher = Dispatcher(settings, found, tasks, store, gate.limits, gate.running)
    return DispatchLoop(dispatcher, RedisLease(store.r), holder)


def job_service(settings: Settings, jobs_queue: CeleryQueue | None = None) -> JobService:
    """What the API runs on."""
    from service.adapters.redis.lexicons import RedisLexicons
    from service.adapters.redis.metrics import Metrics
    from service.adapters.redis.presets import RedisPresets
    from service.adapters.redis.quotas import RedisQuotas
    from service.jobs import JobService
    from service.jobs.lexicons import Lexicons

    store, files = job_store(settings), storage(settings)
    tenants = keys(settings, store.r)
    return JobService(
        settings,
        store,
        files,
        pipeline(settings),
        jobs_queue or queue(settings),
        Metrics(store.r),
        presets(settings, RedisPresets(store.r)),
        quotas=quota_gate(settings, RedisQuotas(store.r), tenants),
        lexicons=Lexicons(RedisLexicons(store.r)),
        **shared(settings, store, files),
        keys=tenants,
    )


def worker_steps(settings: Settings, app: Celery) -> WorkerSteps:
    """What a worker process runs; ``app`` is the worker's own Celery app."""
    from service.adapters.redis.metrics import Metrics
    from service.jobs import WorkerSteps

    store, files = job_store(settings), storage(settings)
    parts = (settings, store, files, pipeline(settings), queue(settings, app), Metrics(store.r))
    return WorkerSteps(*parts, **shared(settings, store, files))


def reconciler(settings: Settings, jobs_queue: CeleryQueue | None = None) -> Reconciler:
    from service.jobs import Lifecycle, Reconciler

    store, files = job_store(settings), storage(settings)
    found = shared(settings, store, files)
    life = Lifecycle(settings, store, files, found["webhooks"], found["progress"])
    return Reconciler(settings, store, jobs_queue or queue(settings), life, found["lanes"])


def sweeper(settings: Settings) -> Sweeper:
    """The retention sweep, for `narrate gc` (the reconciler holds its own)."""
    from service.jobs.retention import Sweeper

    return Sweeper(settings, job_store(settings), storage(settings))


def in_memory(settings: Settings) -> tuple[JobService, WorkerSteps, MemoryQueue]:
    """The API's service and a worker's steps on one in-memory store and queue (no Redis, no
    Celery): the fast test tier's fleet. Tasks run when the queue is drained:
    ``queue.drain(run_task(steps))``."""
    from service.adapters.http.webhooks import HttpSender
    from service.adapters.memory.batches import MemoryBatches, MemoryBatchEvents
    from service.adapters.memory.jobstore import MemoryJobStore
    from service.adapters.memory.lanes import MemoryLanes
    from service.adapters.memory.lexicons import MemoryLexicons
    from service.adapters.memory.metrics import MemoryMetrics
    from service.adapters.memory.presets import MemoryPresets
    from service.adapters.memory.queue import MemoryQueue
    from service.adapters.memory.quotas import MemoryQuotas
    from service.adapters.memory.tenant_keys import MemoryTenantKeys
    from service.adapters.memory.webhooks import MemoryWebhooks
    from service.jobs import JobService, WorkerSteps
    from service.jobs.batch_progress import BatchProgress
    from service.jobs.dispatch import Dispatcher
    from service.jobs.keys import KeyStore
    from service.jobs.lexicons import Lexicons
    from service.jobs.webhooks import Webhooks

    jobs_queue = MemoryQueue()
    store = MemoryJobStore(jobs_queue)
    fair = MemoryLanes(jobs_queue) if settings.fair_share else None
    files = storage(settings)
    sender = HttpSender(settings.webhook_timeout, settings.webhook_allow_private)
    hooks = Webhooks(settings, MemoryWebhooks(), sender, files)
    parts = (settings, store, files, pipeline(settings), jobs_queue)
    metrics = MemoryMetrics(store, jobs_queue)
    tenants = KeyStore(MemoryTenantKeys(), settings.keys_file)
    service_presets = presets(settings, MemoryPresets())
    gate = quota_gate(settings, MemoryQuotas(store), tenants)
    if fair is not None:  # the fleet's drain dispatches from the lanes when the queue is empty
        jobs_queue.refill = Dispatcher(
            settings, fair, jobs_queue, store, gate.limits, gate.running
        ).tick
    found = BatchProgress(store, MemoryBatches(), MemoryBatchEvents(), hooks)
    return (
        JobService(
            *parts,
            metrics,
            service_presets,
            hooks,
            gate,
            fair,
            found,
            Lexicons(MemoryLexicons()),
            tenants,
        ),
        WorkerSteps(*parts, metrics, hooks, fair, found),
        jobs_queue,
    )


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


def batch_service(settings: Settings, jobs: JobService) -> BatchService:
    """Batches on the store the job service's batch progress reads (Redis beside a Redis job
    store, else memory), else a store of their own in memory."""
    from service.adapters.memory.batches import MemoryBatches
    from service.jobs.batches import BatchService

    progress = jobs.lifecycle.batches
    return BatchService(jobs, progress.batches if progress is not None else MemoryBatches())


def style_previews(settings: Settings, jobs: JobService) -> StylePreviews:
    """The style stills (service/jobs/previews.py): ffmpeg's libass, the styles file, the
    jobs' storage."""
    from service.adapters.ffmpeg.stills import FfmpegStills
    from service.adapters.files.styles import styles_data
    from service.jobs.previews import StylePreviews

    return StylePreviews(
        lambda: styles_data(settings), FfmpegStills(settings), jobs.storage, settings.font_name
    )


def speech_desk(settings: Settings, jobs: JobService) -> SpeechDesk:
    """Speech on request (POST /v1/audio/speech, the MCP server's tools): the API's own
    pipeline (engines behind the shared TTS cache) and the tenants' quotas."""
    from service.jobs.speech import SpeechDesk

    return SpeechDesk(
        jobs.pipeline,
        jobs.quotas,
        settings.speech_concurrency,
        settings.speech_wait,
        jobs.lexicons,
    )


def stream_encoder(settings: Settings) -> StreamEncoder:
    from service.adapters.ffmpeg.stream_encode import FfmpegStreamEncoder

    return FfmpegStreamEncoder(settings.ffmpeg, settings.ffmpeg_timeout)

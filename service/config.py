"""One Settings object for the API, the workers and the CLI. Every knob: a default that
works on one machine, and an environment variable ``NARRATE_<NAME>``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from voices import DIR as VOICES_DIR

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NARRATE_", extra="ignore")

    # Where artifacts, uploads, keys and the embedded Redis's AOF live.
    data_dir: Path = ROOT / "var"
    # None: `narrate serve` starts a local Redis with AOF under data_dir. redis://, rediss://,
    # or a Sentinel-managed primary: sentinel://[:password@]host:port[,host:port...]/<master>[/db]
    # (store, broker, lanes and events all follow a failover; service/adapters/redis/url.py).
    # memory://: every store and the queue in this one process, nothing kept, tasks run only
    # when the queue is drained (the fast test tier's backend; service/adapters/backend.py);
    # narrate serve, worker and reconcile and uvicorn service.api.main:app refuse it.
    redis_url: str | None = None
    # The shipped catalog; styles.json and lexicon/ are read from the same folder.
    voices_file: Path = VOICES_DIR / "catalog.json"
    # Logs of the narrate loggers: "text" (job/tenant/segment as key=value) or "json" (one
    # object per line, for a log shipper).
    log_format: Literal["text", "json"] = "text"

    # Audio
    sample_rate: int = 24000  # Hz of the narration and every intermediate WAV
    # A master's loudness when neither the job's options nor its preset give one.
    target_lufs: float = -16.0
    true_peak_db: float = -1.0  # dBTP: the master's true-peak ceiling, likewise

    default_engine: str = "auto"  # a job that names no engine: auto, edge, kokoro, espeak...
    # Seconds the job's timeline may span (segments, overlays); finalize's work grows with it.
    max_timeline: float = 3600.0

    # The programs narrate runs (service/adapters/process.py) and how long each may take.
    ffmpeg: str = "ffmpeg"
    ffprobe: str = "ffprobe"
    rubberband: str = "rubberband"
    espeak: str = "espeak-ng"
    ffmpeg_timeout: float = 600.0  # one ffmpeg run (a mux, an encode part)
    probe_timeout: float = 30.0  # one ffprobe of an upload
    espeak_timeout: float = 60.0  # one phrase
    decode_timeout: float = 60.0  # one engine answer (edge's MP3 -> PCM)
    allowed_formats: str = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"  # ffprobe format names
    max_width: int = 7680  # pixels: a video over it is refused at the door
    max_height: int = 7680  # pixels, likewise
    max_video_seconds: float = 4 * 3600  # an uploaded video's length
    max_fps: float = 240.0  # an uploaded video's frame rate
    burn_in_preset: str = "ultrafast"  # x264 preset of a re-encoded picture
    burn_in_crf: int = 23  # x264 default, so burn-in costs what a plain encode costs
    # A re-encoded picture is cut into this many time parts, each encoded by a single-threaded
    # ffmpeg at the same time and joined by a stream copy (0: one per CPU core, at most 8).
    encode_parts: int = Field(default=0, ge=0, le=64)

    font_name: str = "Noto Sans CJK SC"  # the subtitles' font unless a style names one

    # edge-tts
    edge_wss_url: str | None = None  # None: edge-tts's own endpoint
    edge_connect_timeout: float = 10.0  # seconds to open edge's websocket
    edge_receive_timeout: float = 60.0  # seconds between two messages of one answer
    edge_attempts: int = 3  # tries of one phrase, with jittered exponential backoff
    edge_max_connections: int = 8  # open at once across the fleet (a lease in Redis)
    edge_breaker_failures: int = 5  # failures in a row that open the fleet-wide breaker
    edge_breaker_cooldown: float = 60.0  # seconds open, then one half-open probe
    edge_backoff: float = 0.5  # seconds before the second try, doubled after
    tts_cache: bool = True  # reuse syntheses from the shared, content-addressed cache
    # kokoro's ONNX intra-op threads per process. Each worker is its own process (the workers
    # are the parallelism), and one thread did the same work for less CPU than two
    # (bench/kokoro.py --threads 1,2); a local render runs one call per core at a time.
    kokoro_threads: int = Field(default=1, ge=1, le=64)
    # The speech check (options check_speech) when a job does not say: on. The test suite
    # turns it off (tests/conftest.py): its stacks would load the recogniser for nothing.
    speech_check: bool = True

    # API
    # POST /v1/audio/speech (OpenAI's shape): the longest input it speaks (OpenAI's own limit;
    # longer text is a job), the requests synthesizing at once in one API process, and the
    # seconds a request waits for one of those slots before a 429.
    speech_max_chars: int = Field(4096, ge=1, le=100_000)
    speech_concurrency: int = Field(2, ge=1, le=64)
    speech_wait: float = Field(10.0, gt=0, le=300)
    max_script_bytes: int = 1 << 20  # a script or JSON spec (413 over it)
    max_video_bytes: int = 2 << 30  # an uploaded video
    max_music_bytes: int = 256 << 20  # an uploaded music bed
    # Recorded takes (take-N per segment, or take for the whole script): each within the
    # size, at most this many, each at most this long (decoded at the door).
    max_take_bytes: int = 128 << 20
    max_takes: int = 100
    max_take_seconds: float = 600.0
    require_keys: bool | None = None  # None: required unless listening on loopback
    # Host header values (names or IPs, any port) the API answers; others get 421, so a
    # DNS-rebinding page cannot reach it. "": localhost, 127.0.0.1, [::1] and NARRATE_HOST
    # (unless a wildcard address); "*": any.
    allowed_hosts: str = ""
    # Bearer token /metrics asks for; None: it answers clients on this machine only.
    metrics_token: str | None = None
    # Task slots per worker (its --concurrency) that /metrics' narrate_desired_workers divides
    # the backlog by: ceil((waiting + running) / this), for an autoscaler (KEDA).
    autoscale_concurrency: int = Field(default=1, ge=1, le=64)
    # GET /v1/jobs/{id}/events (Server-Sent Events): a ": heartbeat" comment after this many
    # quiet seconds, the job's stream read every events_poll s, and at most max_event_streams
    # open at once per API process (more are answered 503 with Retry-After), of which at most
    # max_event_streams_per_tenant for any one tenant (so one cannot take them all).
    events_heartbeat: float = Field(default=15.0, gt=0)
    events_poll: float = Field(default=0.25, gt=0)
    max_event_streams: int = Field(default=500, ge=1)
    max_event_streams_per_tenant: int = Field(default=50, ge=1)
    docs: bool = True  # /docs (Swagger UI, served from the fastapi-offline package)
    # Seconds any one Redis call may take (connect, or wait for a reply) before it fails:
    # a hung Redis costs a request this long, and the API answers 503.
    redis_timeout: float = 2.0

    # Storage: None keeps every byte under data_dir (one machine, or a shared disk);
    # "s3://bucket/prefix" puts uploads, work files, the TTS cache and artifacts in an
    # S3-compatible store (credentials and region: the standard AWS_* variables).
    storage_url: str | None = None
    s3_endpoint_url: str | None = None  # MinIO, Ceph, R2...; None: AWS
    s3_max_attempts: int = 5  # per request, with backoff, on 5xx, throttling and lost links
    s3_retry_mode: str = "standard"  # botocore's: standard | adaptive
    s3_connect_timeout: float = 5.0
    s3_read_timeout: float = 60.0
    s3_part_size: int = 8 << 20  # multipart upload part size (S3's minimum: 5 MiB)
    presign_seconds: int = 300  # how long an artifact's redirect URL stays valid

    # Retention: what nothing else removes goes after this long (the reconciler sweeps
    # every sweep_interval seconds; `narrate gc` sweeps once). Finished jobs (succeeded,
    # failed, canceled): record, artifacts and keys, this many days after they ended.
    keep_jobs_days: float = Field(default=30.0, ge=0)
    # Uploads and files no job owns (a request killed mid-upload, a step's leftovers after
    # its job was deleted): this many days after they last changed.
    keep_uploads_days: float = Field(default=2.0, ge=0)
    sweep_interval: float = 3600.0
    # Seconds an upload may go without sending a byte before it is answered 408.
    upload_idle_timeout: float = Field(default=60.0, gt=0)

    # Webhooks (Standard Webhooks: /v1/webhooks endpoints, a job's webhook_url). Every worker
    # runs a sender: a delivery is retried with exponential backoff (webhook_backoff s, doubled
    # each try, capped at webhook_backoff_max, times a jitter of 0.5-1.5) until this many
    # seconds after its event; each try waits webhook_timeout s for an answer.
    webhook_max_age: float = Field(default=86400.0, gt=0)
    webhook_timeout: float = Field(default=10.0, gt=0)
    webhook_backoff: float = Field(default=5.0, gt=0)
    webhook_backoff_max: float = Field(default=3600.0, gt=0)
    # Seconds a sender holds a claimed delivery: a sender killed mid-try lets it go after
    # this long and another sends it (same webhook-id). Keep above webhook_timeout.
    webhook_lease: float = Field(default=30.0, gt=0)
    webhook_poll: float = Field(default=0.25, gt=0)  # seconds between outbox checks when idle
    # Let webhook URLs reach loopback, private, link-local and metadata addresses (refused
    # otherwise, at registration and at every delivery): for tests and closed networks only.
    webhook_allow_private: bool = False
    # The API's base URL as receivers reach it: artifact links in a payload start with it
    # (presigned URLs instead when the store is S3).
    public_url: str = "http://127.0.0.1:8000"

    # Batches (POST /v1/batches): the items one batch may hold, and the bytes of its whole
    # body (scripts, videos and music together). Past either the batch is refused at the
    # door (422 / 413, naming the setting) and nothing of it is kept.
    batch_max_items: int = Field(default=100, ge=1)
    batch_max_bytes: int = Field(default=8 << 30, ge=1)

    # Quotas, per tenant (a key's --max-queued / --max-running / --per-minute override them):
    # past one a submission answers 429 with Retry-After, naming the limit and the use. A batch
    # counts its items as queued jobs and is one submission.
    max_queued_jobs: int = Field(default=1000, ge=1)
    max_running_jobs: int = Field(default=100, ge=1)
    submissions_per_minute: int = Field(default=600, ge=1)

    # Workers
    task_soft_time_limit: float = 300.0  # seconds a step may run before it is told to stop
    task_time_limit: float = 360.0  # seconds before it is killed (and redelivered)
    max_deliveries: int = 3  # deliveries of a step that kills its worker before the job fails
    job_timeout: float = 3600.0  # seconds from a job's first step to its end, at most
    visibility_timeout_override: float | None = None  # tests shorten it
    restore_interval: float = 10.0  # seconds between kombu's sweeps for tasks held too long
    # A worker told to stop (SIGTERM: REMAP_SIGTERM=SIGQUIT, service/cli/stack.py) waits this long
    # for its running step, then hands it back to the queue (Celery's soft shutdown). Celery
    # sleeps the whole time whatever the step does, so keep it short; 0: at once.
    worker_soft_shutdown_timeout: float = Field(default=10.0, ge=0, le=300)
    # Each worker's main process writes a heartbeat to Redis this often (seconds). A worker
    # whose last beat is older than worker_dead_after is dead: /readyz stops counting it, and
    # the live workers (and the reconciler) hand the tasks it held back to the queue at once,
    # instead of after visibility_timeout (which stays long, for long encodes).
    worker_heartbeat: float = Field(default=2.0, gt=0)
    worker_dead_after: float = Field(default=15.0, gt=0)
    # Fair share: a job's tasks wait in its tenant's lane, and a dispatcher (one at a time, by
    # a lease of dispatch_lease seconds; every worker runs one, `narrate dispatch` runs one
    # alone) keeps dispatch_window tasks waiting in the broker's queue, refilled in weighted
    # round robin every dispatch_interval seconds. Off: first come, first served (no lanes).
    fair_share: bool = True
    dispatch_window: int = Field(default=1, ge=1)
    dispatch_interval: float = Field(default=0.05, gt=0)
    dispatch_lease: float = Field(default=3.0, gt=0)
    dispatch_in_worker: bool = True
    # /readyz is unavailable when fair share is on and no dispatcher has held the lease for
    # this long (the lanes are filling and nothing moves them to the queue).
    dispatch_dead_after: float = Field(default=15.0, gt=0)
    embedded_redis_port: int = 6399  # the Redis `narrate serve` starts without redis_url
    host: str = "127.0.0.1"  # where the API listens; keys are required off loopback

    @model_validator(mode="after")
    def _lease_over_timeout(self) -> Settings:
        """A lease shorter than a try would let a second sender send while the first waits."""
        if self.webhook_lease <= self.webhook_timeout:
            raise ValueError(
                f"NARRATE_WEBHOOK_LEASE ({self.webhook_lease:g} s) must be longer than "
                f"NARRATE_WEBHOOK_TIMEOUT ({self.webhook_timeout:g} s)"
            )
        return self

    @property
    def visibility_timeout(self) -> float:
        return self.visibility_timeout_override or 2 * self.task_time_limit

    @property
    def broker_url(self) -> str:
        return self.redis_url or f"redis://127.0.0.1:{self.embedded_redis_port}/0"

    @property
    def keys_file(self) -> Path:
        return self.data_dir / "keys.json"

    @property
    def keys_required(self) -> bool:
        if self.require_keys is not None:
            return self.require_keys
        return self.host not in ("127.0.0.1", "localhost", "::1")

    @property
    def allowed_host_names(self) -> frozenset[str] | None:
        """The Host names the API answers (lowercase, IPv6 in brackets); None: any."""
        names = [h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()]
        if "*" in names:
            return None
        if not names:
            names = ["localhost", "127.0.0.1", "[::1]"]
            if self.host not in ("0.0.0.0", "::", ""):
                names.append(self.host.lower())
        return frozenset(f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names)

    @property
    def artifacts_dir(self) -> Path:
        return self.data_dir / "artifacts"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def scratch_dir(self) -> Path:
        """This machine's copies of a job's files while a step runs (object storage)."""
        return self.data_dir / "scratch"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()

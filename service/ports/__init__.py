"""The ports the pipeline and the jobs layer talk through; adapters implement them. One
module per side (tts, media, storage, jobs); every name is importable from here."""

from service.ports.convert import Converter
from service.ports.jobs import (
    BUCKETS,
    FINALIZE_TASK,
    QUEUE,
    SEGMENT_TASK,
    WAIT_BUCKETS,
    BatchEvents,
    BatchStore,
    Fleet,
    JobEvent,
    JobStore,
    JobSweep,
    LexiconStore,
    Metrics,
    PresetStore,
    Queue,
    Quotas,
)
from service.ports.media import (
    Check,
    Encoding,
    Media,
    MuxRequest,
    PcmSink,
    StreamEncoder,
    VideoInfo,
)
from service.ports.storage import Artifact, Blobs, Incoming, Storage, Stored, Workspace
from service.ports.tenants import KeyRecord, TenantKeys
from service.ports.tts import Boundary, Speech, TtsEngine, TtsRequest
from service.ports.webhooks import Attempt, Delivery, Endpoint, WebhookSender, WebhookStore

__all__ = [
    "BUCKETS",
    "FINALIZE_TASK",
    "QUEUE",
    "SEGMENT_TASK",
    "WAIT_BUCKETS",
    "Artifact",
    "Attempt",
    "BatchEvents",
    "BatchStore",
    "Blobs",
    "Boundary",
    "Check",
    "Converter",
    "Delivery",
    "Encoding",
    "Endpoint",
    "Fleet",
    "Incoming",
    "JobEvent",
    "JobStore",
    "JobSweep",
    "KeyRecord",
    "LexiconStore",
    "Media",
    "Metrics",
    "MuxRequest",
    "PcmSink",
    "PresetStore",
    "Queue",
    "Quotas",
    "Speech",
    "Storage",
    "Stored",
    "StreamEncoder",
    "TenantKeys",
    "TtsEngine",
    "TtsRequest",
    "VideoInfo",
    "WebhookSender",
    "WebhookStore",
    "Workspace",
]

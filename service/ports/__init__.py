"""The ports the pipeline and the jobs layer talk through; adapters implement them. One
module per side (tts, media, storage, jobs); every name is importable from here."""

from service.ports.jobs import FINALIZE_TASK, SEGMENT_TASK, Fleet, JobStore, Metrics, Queue
from service.ports.media import Encoding, Media, MuxRequest, PcmSink, VideoInfo
from service.ports.storage import Artifact, Blobs, Incoming, Storage, Workspace
from service.ports.tts import Boundary, Speech, TtsEngine, TtsRequest

__all__ = [
    "FINALIZE_TASK",
    "SEGMENT_TASK",
    "Artifact",
    "Blobs",
    "Boundary",
    "Encoding",
    "Fleet",
    "Incoming",
    "JobStore",
    "Media",
    "Metrics",
    "MuxRequest",
    "PcmSink",
    "Queue",
    "Speech",
    "Storage",
    "TtsEngine",
    "TtsRequest",
    "VideoInfo",
    "Workspace",
]

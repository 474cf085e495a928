"""The ports the pipeline talks through; adapters implement them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np

from service.domain.job import Job
from service.domain.units import samples_to_ms


@dataclass(frozen=True, slots=True)
class TtsRequest:
    text: str
    voice: str
    language: str
    rate: float = 1.0  # multiplier of the engine's default speaking rate
    pitch: str = "+0Hz"
    volume: str = "+0%"
    phrase_chars: int = 16  # engines without boundary events speak phrases of this size
    # The phrases (spans of ``text``) such engines speak one by one; empty: split_phrases of
    # ``text`` by ``phrase_chars``. The pipeline passes the display phrases mapped through the
    # speech front-end, so a phrase ends where its subtitle does.
    phrases: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Boundary:
    """A stretch of the text (character offsets) and when it is spoken (ms into the audio)."""

    start: int
    end: int
    start_ms: int
    end_ms: int


@dataclass(slots=True)
class Speech:
    audio: np.ndarray  # mono float32 in [-1, 1], leading and trailing silence trimmed
    rate: int
    boundaries: list[Boundary] = field(default_factory=list)
    cached: bool = False  # served by the TTS cache: no call reached the engine

    @property
    def duration_ms(self) -> int:
        return samples_to_ms(len(self.audio), self.rate)


class TtsEngine(Protocol):
    name: str

    @property
    def version(self) -> str: ...

    max_rate: float  # fastest native rate multiplier the engine takes
    min_rate: float

    def synthesize(self, request: TtsRequest) -> Speech: ...


@dataclass(frozen=True, slots=True)
class VideoInfo:
    format_name: str
    width: int
    height: int
    duration: float
    fps: float
    video_codec: str
    has_audio: bool
    # Every frame one 1/fps apart from a first frame at 0 (ffprobe's r_frame_rate equals its
    # avg_frame_rate, start_time 0): a file that can be cut at a frame by its time alone.
    constant_rate: bool = False


@dataclass(frozen=True, slots=True)
class MuxRequest:
    video: Path
    narration: Path
    subtitles_srt: Path
    subtitles_ass: Path
    output: Path
    info: VideoInfo
    language: str
    burn_in: bool = False
    original_audio: str = "drop"  # drop | mix
    extend_to: float | None = None  # freeze the last frame up to this many seconds
    duck_intervals: tuple[tuple[float, float], ...] = ()
    encoded_video: Path | None = None  # the picture already re-encoded: stream-copy it
    encoded_audio: Path | None = None  # the narration already AAC, padded: stream-copy it

    @property
    def mixes_original(self) -> bool:
        """The source's own audio stays under the narration (ducked): the mux mixes them."""
        return self.original_audio == "mix" and self.info.has_audio


class PcmSink(Protocol):
    """Where 16-bit PCM goes as it is made: ``finish`` when all is written (raises if the
    consumer failed), ``cancel`` to drop it."""

    def write(self, data: bytes) -> None: ...

    def finish(self) -> None: ...

    def cancel(self) -> None: ...


class Encoding(Protocol):
    """A re-encode running in the background."""

    def wait(self, timeout: float) -> object: ...

    def cancel(self) -> None: ...


class Media(Protocol):
    def probe(self, path: Path) -> VideoInfo: ...

    def encode_video(self, request: MuxRequest, output: Path) -> Encoding | None:
        """Start re-encoding the picture if the request changes it (burn-in, frozen end)."""
        ...

    def audio_sink(self, request: MuxRequest, rate: int, output: Path) -> PcmSink:
        """An encoder of the video's sound track (mono 16-bit PCM at ``rate`` in, AAC padded
        to the video's length out), fed while the narration is normalised."""
        ...

    def mux(self, request: MuxRequest) -> None: ...

    def stretch(self, source: Path, dest: Path, ratio: float) -> None: ...

    def decode_audio(self, source: Path, dest: Path, rate: int, seconds: float) -> None:
        """An audio file as raw mono float32 at ``rate``, its first ``seconds`` at most."""
        ...


class Workspace(Protocol):
    """A job's intermediate files as one machine sees them. Tools (ffmpeg, rubberband, the
    WAV writer) need local paths: ``local`` is where to write or read a file on this machine,
    ``keep`` hands a written file to the job's other steps (which may run on another machine),
    ``fetch`` brings a kept file here, ``input`` brings the job's upload here. On a shared
    directory tree these are all one path; an object store uploads on ``keep`` and downloads
    on ``fetch``/``input`` into a scratch directory that ``close`` removes."""

    def local(self, name: str) -> Path: ...

    def keep(self, name: str) -> None: ...

    def fetch(self, name: str) -> Path: ...

    def input(self, kind: str) -> Path:
        """The job's uploaded ``video`` or ``music`` as a local file; FileNotFoundError if the
        job has none."""
        ...

    def scratch(self) -> Path:
        """A local directory for temporary files (removed by ``close`` or ``clear_work``)."""
        ...

    def close(self) -> None:
        """Drop this machine's copies (what was kept stays kept)."""
        ...


class Incoming(Protocol):
    """An upload arriving in pieces (a multipart request's file part). ``write`` is cheap (the
    event loop calls it); ``flush`` moves what is ``pending`` to the store (blocking: run it in
    a thread); ``commit`` makes the upload the job's input, ``abort`` leaves nothing of it.
    ``path`` is a local file holding the bytes so far, for the checks at the door (ffprobe)."""

    path: Path

    def write(self, chunk: bytes) -> None: ...

    def pending(self) -> bool: ...

    def flush(self) -> None: ...

    def commit(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None:
        """Remove the local copy, if it is not the stored input itself."""
        ...


class Artifact(Protocol):
    """A published artifact to serve: its size, validators and bytes."""

    size: int
    etag: str  # a quoted entity tag
    modified: float  # seconds since the epoch
    path: Path | None  # a local file the server may send itself (None: read through ``open``)

    def open(self, start: int = 0) -> BinaryIO:
        """The bytes from ``start`` to the end, as a stream to read and close."""
        ...

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end)."""
        ...

    def url(self, seconds: int) -> str | None:
        """A short-lived URL the client may fetch the bytes from itself (None: not offered)."""
        ...


class Blobs(Protocol):
    """Small named values shared by the fleet (the TTS cache); each put is atomic."""

    def get(self, name: str) -> bytes | None: ...

    def put(self, name: str, data: bytes) -> None: ...


class Storage(Protocol):
    """Where a job's input, work files and artifacts live, for every machine of the fleet.
    Nothing here is a path that another machine could be expected to see."""

    def cache(self) -> Blobs:
        """The TTS cache, shared by every worker."""
        ...

    def workspace(self, tenant: str, job_id: str) -> Workspace: ...

    def receive(self, tenant: str, job_id: str, kind: str) -> Incoming:
        """Start taking the job's ``video`` or ``music`` upload."""
        ...

    def copy_input(self, tenant: str, source_job: str, job_id: str, kind: str) -> bool:
        """Give ``job_id`` the input of ``source_job`` (a re-render); False if it is gone."""
        ...

    def staging(self, tenant: str, job_id: str) -> Path:
        """A local directory for finalize to write the artifacts into."""
        ...

    def publish(
        self, tenant: str, job_id: str, staged: Path, names: tuple[str, ...]
    ) -> list[str]: ...

    def served(self, tenant: str, job_id: str, name: str) -> Artifact | None: ...

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None: ...

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes: ...

    def clear_work(self, tenant: str, job_id: str) -> None: ...

    def delete(self, tenant: str, job_id: str) -> None: ...


# The two steps of a job, by the names the queue carries them under, and the queue's name.
SEGMENT_TASK = "narrate.segment"
FINALIZE_TASK = "narrate.finalize"
QUEUE = "narrate"


class Queue(Protocol):
    """Where job steps wait for a worker (the broker)."""

    name: str

    def send(self, name: str, args: list[Any]) -> None: ...

    def encode(self, name: str, args: list[Any]) -> str: ...

    def step(self, message: dict[str, Any]) -> tuple[str, str] | None:
        """(job id, step) of a message as the broker holds it (None: not a job step)."""
        ...


@dataclass(frozen=True, slots=True)
class Fleet:
    """The workers by their heartbeats."""

    live: list[str]  # worker instances ("<hostname> <pid>") that beat within dead_after
    dead: list[str]


class JobStore(Protocol):
    """Job records and their counters (adapters/jobstore.py on Redis; adapters/memory.py in
    memory). Every change is atomic; status only moves forward. A store that cannot be
    reached raises StoreUnavailable (service/domain/errors.py), never its client's errors.
    A job's ``error`` and ``warnings`` go in as notices and come back as notices (a record
    kept before they were typed reads as notices too)."""

    def ping(self) -> bool: ...

    def create(
        self,
        job: Job,
        idem: tuple[str, str] | None = None,
        messages: list[str] | None = None,
        queue: str = "",
        budget: float = 3600.0,
    ) -> tuple[Job, bool]:
        """Store ``job`` and hand its first queue ``messages`` to ``queue`` in one step, unless
        ``idem`` (key, body hash) names a job already: then that job and False."""
        ...

    def discard(self, job: Job) -> None: ...

    def get(self, job_id: str) -> Job | None: ...

    def status(self, job_id: str) -> str | None: ...

    def page(
        self, tenant: str, status: str | None, limit: int, cursor: int | None
    ) -> tuple[list[Job], int | None]: ...

    def active(self) -> list[str]: ...

    def forget_active(self, job_id: str) -> None: ...

    def done_segments(self, job_id: str) -> set[int]: ...

    def advance(self, job_id: str, status: str, **fields: Any) -> bool: ...

    def update(self, job_id: str, **fields: Any) -> None: ...

    def set_segment(self, job_id: str, index: int, **state: Any) -> None: ...

    def deliveries(self, job_id: str, task: str) -> int: ...

    def delivered(self, job_id: str, task: str) -> int: ...

    def segment_done(self, job_id: str, index: int) -> bool: ...

    # -- the fleet (adapters/fleet.py) ----------------------------------------------------------
    def beat(self, worker: str, held: Iterable[str]) -> None:
        """``worker`` is alive and holds these delivery tags."""
        ...

    def leave(self, worker: str) -> None: ...

    def fleet(self, dead_after: float) -> Fleet: ...

    def hand_back(self, worker: str, queue: str, dead_after: float | None) -> int:
        """Put what a dead ``worker`` held back on ``queue``, once; how many went back."""
        ...

    def broker_messages(self, queue: str) -> list[dict[str, Any]]:
        """Every message the broker holds for ``queue``, waiting or delivered."""
        ...


# The upper bounds (seconds) of the stage histograms every Metrics keeps and /metrics shows.
BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class Metrics(Protocol):
    """Fleet-wide figures every worker process adds to and /metrics reads; StoreUnavailable
    when the store behind them cannot be reached."""

    def observe_stage(self, stage: str, seconds: float) -> None: ...

    def stage_histograms(self) -> dict[str, dict[str, float]]: ...

    def count_tts(self, engine: str, n: int = 1) -> None: ...

    def tts_calls(self) -> dict[str, int]: ...

    def count_by_state(self) -> dict[str, int]: ...

    def queue_depth(self, queue: str) -> int: ...

    def backfill(self, batch: int = 500) -> int:
        """Count the jobs stored before the per-state counters existed (once per store)."""
        ...

"""The ports the pipeline talks through; adapters implement them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

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
    """A job's intermediate files as the pipeline sees them. Tools (ffmpeg, rubberband, the
    WAV writer) need local paths: ``local`` is where to write or read a file on this machine,
    ``keep`` hands a written file to the job's other steps (which may run on another machine),
    ``fetch`` brings a kept file here. On a shared directory tree the three are one path; an
    object store uploads on ``keep`` and downloads on ``fetch``."""

    def local(self, name: str) -> Path: ...

    def keep(self, name: str) -> None: ...

    def fetch(self, name: str) -> Path: ...

    def scratch(self) -> Path:
        """A local directory for temporary files that ``Storage.clear_work`` removes."""
        ...


class Storage(Protocol):
    """Where a job's input, work files and artifacts live (a directory tree shared by the fleet)."""

    def job_dir(self, tenant: str, job_id: str) -> Path: ...

    def workspace(self, tenant: str, job_id: str) -> Workspace: ...

    def input_video(self, tenant: str, job_id: str) -> Path: ...

    def input_music(self, tenant: str, job_id: str) -> Path: ...

    def artifact(self, tenant: str, job_id: str, name: str) -> Path: ...

    def staging(self, tenant: str, job_id: str) -> Path: ...

    def publish(
        self, tenant: str, job_id: str, staged: Path, names: tuple[str, ...]
    ) -> list[str]: ...

    def served(self, tenant: str, job_id: str, name: str) -> Path | None: ...

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None: ...

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes: ...

    def clear_work(self, tenant: str, job_id: str) -> None: ...

    def delete(self, tenant: str, job_id: str) -> None: ...


class Queue(Protocol):
    """Where job steps wait for a worker (the broker)."""

    name: str

    def send(self, name: str, args: list[Any]) -> None: ...

    def encode(self, name: str, args: list[Any]) -> str: ...

    def workers(self, timeout: float = 1.0) -> int: ...

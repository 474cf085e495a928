"""ffmpeg's side of a job: probe, encode, mux, stretch, decode."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from service.domain.video import VideoInfo as VideoInfo  # a fact of the job's plan (domain)


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


Check = Callable[[], None]  # called now and then during a long run; raises to stop it


class Encoding(Protocol):
    """A re-encode running in the background."""

    def wait(self, timeout: float, check: Check | None = None) -> object:
        """Until it is done; ``check`` (its job canceled?) may raise: then it is stopped."""
        ...

    def fraction(self) -> float:
        """How much of the picture is encoded so far, 0..1."""
        ...

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

    def mux(self, request: MuxRequest, check: Check | None = None) -> None: ...

    def stretch(self, source: Path, dest: Path, ratio: float) -> None: ...

    def decode_audio(self, source: Path, dest: Path, rate: int, seconds: float) -> None:
        """An audio file as raw mono float32 at ``rate``, its first ``seconds`` at most."""
        ...


class StreamEncoder(Protocol):
    """Encodes audio as it arrives and hands the bytes on as they are made (a speech
    request's response: the first sentence is sent while the next is spoken)."""

    def stream(self, pcm: Iterator[bytes], fmt: str, rate: int) -> Iterator[bytes]:
        """``pcm`` (mono s16le at ``rate``) encoded as ``fmt`` (mp3, opus, aac, flac, wav,
        pcm); raises MediaError if the encoder fails."""
        ...

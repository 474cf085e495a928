"""The speech response's encoder with the real ffmpeg: bytes come out while the next
sentence is still being made (the feeding generator is held at a gate the test opens),
every format's container, and a synthesis that fails mid-stream ends it with that error."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest

from service.adapters.ffmpeg.stream_encode import FfmpegStreamEncoder
from service.domain.errors import EngineError

RATE = 24000


def tone(seconds: float) -> bytes:
    t = np.arange(int(RATE * seconds)) / RATE
    return (np.sin(2 * np.pi * 440 * t) * 8000).astype("<i2").tobytes()


def test_bytes_are_sent_before_the_next_sentence_is_made() -> None:
    gate, fed = threading.Event(), threading.Event()

    def sentences() -> Iterator[bytes]:
        yield tone(2.0)
        fed.set()
        assert gate.wait(60), "the test never opened the gate"
        yield tone(1.0)

    stream = FfmpegStreamEncoder("ffmpeg", 60).stream(sentences(), "mp3", RATE)
    first: list[bytes] = []
    reader = threading.Thread(target=lambda: first.append(next(stream)))
    reader.start()
    reader.join(30)  # the second sentence is held back: only a streaming encoder answers
    assert first and first[0], "no byte came out while the next sentence was being made"
    gate.set()
    rest = b"".join(stream)
    assert len(first[0] + rest) > 30_000  # 3 s of 128 kb/s MP3


@pytest.mark.parametrize(("fmt", "magic"), [("opus", b"OggS"), ("flac", b"fLaC"), ("wav", b"RIFF")])
def test_each_format_starts_with_its_container(fmt: str, magic: bytes) -> None:
    out = b"".join(FfmpegStreamEncoder("ffmpeg", 60).stream(iter([tone(0.5)]), fmt, RATE))
    assert out.startswith(magic)


def test_pcm_is_the_samples_themselves() -> None:
    data = tone(0.25)
    assert b"".join(FfmpegStreamEncoder("ffmpeg", 60).stream(iter([data]), "pcm", RATE)) == data


def test_a_synthesis_failing_mid_stream_ends_it_with_its_error() -> None:
    def sentences() -> Iterator[bytes]:
        yield tone(0.5)
        raise EngineError("kokoro", "the model ran out of memory")

    with pytest.raises(EngineError, match="out of memory"):
        b"".join(FfmpegStreamEncoder("ffmpeg", 60).stream(sentences(), "mp3", RATE))

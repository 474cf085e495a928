"""16-bit PCM WAV reading and writing (writes by rename: never half a file)."""

from __future__ import annotations

import io
import os
import wave
from pathlib import Path

import numpy as np

from service.audio.arrays import Audio
from service.domain.errors import AudioFormatError


def read_wav(data: bytes | Path) -> tuple[Audio, int]:
    """Mono float32 from 16-bit PCM WAV (channels averaged); AudioFormatError otherwise."""
    src = io.BytesIO(data) if isinstance(data, bytes) else str(data)
    try:
        with wave.open(src, "rb") as w:
            rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
            raw = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as exc:
        raise AudioFormatError(f"not a readable WAV file: {exc}") from None
    if width != 2:
        raise AudioFormatError(f"expected 16-bit PCM WAV, got {8 * width}-bit")
    x = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return x, rate


def to_pcm16(x: Audio) -> np.ndarray:
    # The same scale as read_wav, so float -> PCM -> float -> PCM is exact.
    return np.clip(np.round(x * 32768.0), -32768, 32767).astype("<i2")


def quantize(x: Audio) -> Audio:
    """What ``x`` becomes once stored as 16-bit PCM."""
    return to_pcm16(x).astype(np.float32) / 32768.0


def wav_bytes(x: Audio, rate: int) -> bytes:
    """Mono 16-bit PCM WAV as bytes (what ``write_wav`` writes)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(to_pcm16(x).tobytes())
    return out.getvalue()


def write_wav(path: Path, x: Audio, rate: int) -> None:
    """Mono 16-bit PCM, written under a temporary name and renamed: never half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(to_pcm16(x).tobytes())
    os.replace(tmp, path)

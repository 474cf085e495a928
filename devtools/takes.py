"""Recorded takes made on the spot (for tests and benchmarks): a text read phrase by phrase
by espeak-ng in another voice, rate and pitch than narrate's reference, with pauses of known
length between phrases, so each phrase's onset in the take is known."""

from __future__ import annotations

import io
import subprocess
import wave

import numpy as np

RATE = 22050


def espeak_phrase(text: str, voice: str, wpm: int, pitch: int) -> np.ndarray:
    out = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(wpm), "-p", str(pitch), "--stdout"],
        input=text.encode(),
        capture_output=True,
        check=True,
    ).stdout
    with wave.open(io.BytesIO(out)) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32)
    x /= 32768
    loud = np.flatnonzero(np.abs(x) > 10 ** (-50 / 20))
    return x[loud[0] : loud[-1] + 1] if len(loud) else x[:0]


def take(
    phrases: list[str],
    voice: str = "en-us+f3",
    wpm: int = 210,
    pitch: int = 75,
    gap_ms: int = 350,
    lead_ms: int = 400,
    noise_db: float = -66.0,
) -> tuple[bytes, list[int]]:
    """A WAV of ``phrases`` read one after another, and each phrase's onset (ms from the
    first sound: narrate trims the lead-in)."""
    pieces: list[np.ndarray] = [np.zeros(RATE * lead_ms // 1000, dtype=np.float32)]
    onsets: list[int] = []
    at = 0
    for i, text in enumerate(phrases):
        onsets.append(round(at * 1000 / RATE))
        said = espeak_phrase(text, voice, wpm, pitch)
        gap = np.zeros(RATE * (gap_ms if i < len(phrases) - 1 else lead_ms) // 1000)
        pieces += [said, gap.astype(np.float32)]
        at += len(said) + len(gap)
    x = np.concatenate(pieces)
    x = x + np.random.default_rng(3).normal(0, 10 ** (noise_db / 20), len(x))
    pcm = (np.clip(x, -1, 1) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
    return buf.getvalue(), onsets

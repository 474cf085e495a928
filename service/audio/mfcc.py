"""Spectral features for aligning two voices saying the same text (align.py): MFCCs with
per-utterance mean and variance normalisation (so two speakers' timbres and levels matter less
than what they say), and which frames are pauses. Pure numpy: 25 ms Hamming windows every
10 ms at 16 kHz, 26 mel bands up to 8 kHz, cepstra 1..12 and their deltas."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

FEATURE_RATE = 16000
HOP = 160  # 10 ms
WIN = 400  # 25 ms
NFFT = 512
N_MELS = 26
N_CEPS = 12  # c1..c12 (c0, the level, is left out)
PAUSE_DB = -35.0  # a frame this far under the utterance's loud frames is a pause
PAUSE_MARK = 1.5  # the pause column's value (+ pause, - speech)


@dataclass(frozen=True)
class Features:
    """One utterance's frames: normalised cepstra (frames x dims) and the pause mask."""

    ceps: np.ndarray
    pause: np.ndarray  # bool per frame

    @property
    def frames(self) -> int:
        return len(self.pause)


def _mel(hz: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + hz / 700.0)


def _hz(mel: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)


@lru_cache(maxsize=4)
def mel_filters(rate: int = FEATURE_RATE, nfft: int = NFFT, bands: int = N_MELS) -> np.ndarray:
    """Triangular mel filters (bands x nfft//2+1), 60 Hz to the Nyquist frequency."""
    edges = _hz(np.linspace(_mel(np.array(60.0)), _mel(np.array(rate / 2)), bands + 2))
    bins = np.fft.rfftfreq(nfft, 1.0 / rate)
    out = np.zeros((bands, len(bins)))
    for b in range(bands):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        rise = (bins - lo) / (mid - lo)
        fall = (hi - bins) / (hi - mid)
        out[b] = np.clip(np.minimum(rise, fall), 0.0, None)
    return out


@lru_cache(maxsize=4)
def dct_matrix(bands: int = N_MELS, ceps: int = N_CEPS) -> np.ndarray:
    """DCT-II rows 1..ceps (orthonormal), applied to log mel energies."""
    n = np.arange(bands)
    k = np.arange(1, ceps + 1)[:, None]
    return np.asarray(np.sqrt(2.0 / bands) * np.cos(np.pi * k * (2 * n + 1) / (2 * bands)))


def frames_of(x: np.ndarray) -> np.ndarray:
    """Overlapping windows (frames x WIN) of a 16 kHz signal, the last one zero-padded."""
    n = max(1, 1 + (len(x) - 1) // HOP) if len(x) else 1
    padded = np.zeros((n - 1) * HOP + WIN, dtype=np.float32)
    padded[: len(x)] = x
    idx = np.arange(WIN)[None, :] + HOP * np.arange(n)[:, None]
    return np.asarray(padded[idx])


def deltas(c: np.ndarray, width: int = 2) -> np.ndarray:
    """Regression slope of each coefficient over +-``width`` frames."""
    padded = np.pad(c, ((width, width), (0, 0)), mode="edge")
    num = sum(k * (padded[width + k : len(c) + width + k] - padded[width - k : len(c) + width - k])
              for k in range(1, width + 1))  # fmt: skip
    return np.asarray(num) / (2 * sum(k * k for k in range(1, width + 1)))


def features(x: np.ndarray) -> Features:
    """Normalised MFCCs and deltas of a 16 kHz mono signal, and its pause frames."""
    x = np.asarray(x, dtype=np.float32)
    emphasised = np.append(x[:1], x[1:] - 0.97 * x[:-1]) if len(x) else x
    win = frames_of(emphasised) * np.hamming(WIN).astype(np.float32)
    power = np.abs(np.fft.rfft(win, NFFT)) ** 2
    energy_db = 10 * np.log10(np.sum(frames_of(x) ** 2, axis=1) / WIN + 1e-12)
    logmel = np.log(power @ mel_filters().T + 1e-10)
    ceps = logmel @ dct_matrix().T
    ceps = np.hstack([ceps, deltas(ceps)])
    loud = np.percentile(energy_db, 95) if len(energy_db) else 0.0
    pause = energy_db < max(loud + PAUSE_DB, -65.0)
    speech = ~pause if np.any(~pause) else np.ones_like(pause)
    mean, std = ceps[speech].mean(axis=0), ceps[speech].std(axis=0) + 1e-6
    normed = (ceps - mean) / std
    # A pause is the same in any recording: one vector, told apart from speech by a column of
    # its own (a synthesiser's digital silence and a room's noise floor must look alike).
    normed[pause] = 0.0
    marker = np.where(pause, PAUSE_MARK, -PAUSE_MARK)[:, None]
    return Features(np.hstack([normed, marker]).astype(np.float32), pause)


def pause_runs(pause: np.ndarray, min_frames: int) -> list[tuple[int, int]]:
    """Runs [start, end) of pause frames at least ``min_frames`` long."""
    edges = np.diff(np.concatenate([[0], pause.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True) if b - a >= min_frames]


def speech_onsets(pause: np.ndarray, min_pause: int) -> np.ndarray:
    """Frames where speech starts after a pause of at least ``min_pause`` frames (and 0)."""
    runs = pause_runs(pause, min_pause)
    onsets = [b for a, b in runs if b < len(pause)]
    if len(pause) and not pause[0]:
        onsets.insert(0, 0)
    return np.array(onsets, dtype=np.int64)

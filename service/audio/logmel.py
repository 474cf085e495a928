"""Whisper's input: an 80-band log-mel spectrogram of 16 kHz audio, 10 ms frames, in numpy.

Written to the same definition the recogniser was trained on (OpenAI's ``log_mel_spectrogram``,
as faster-whisper's ``feature_extractor.py`` computes it without torch): a periodic Hann window
of 400 samples every 160, centred frames (the signal reflected by 200 samples at each end),
the power spectrum's last frame dropped, Slaney-scaled mel filters to 8 kHz, log10 floored at
1e-10, then clamped to 8 (log10) under the loudest value and mapped by (x + 4) / 4. The
filters are computed here, not shipped: the same formula in a dozen lines. Pure numpy."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

RATE = 16000
N_FFT = 400
HOP = 160
N_MELS = 80
CHUNK_FRAMES = 3000  # 30 s: the encoder's fixed input
TAIL_PAD = HOP  # the reference appends one hop of zeros before framing


def _slaney_hz(mels: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (linear to 1 kHz, logarithmic above) back to Hz."""
    f_sp = 200.0 / 3
    hz = f_sp * mels
    min_log_mel = 1000.0 / f_sp
    logstep = np.log(6.4) / 27.0
    high = mels >= min_log_mel
    hz[high] = 1000.0 * np.exp(logstep * (mels[high] - min_log_mel))
    return hz


@lru_cache(maxsize=1)
def mel_filters() -> np.ndarray:
    """(N_MELS, N_FFT // 2 + 1) triangular filters, area-normalised (Slaney)."""
    fft_hz = np.fft.rfftfreq(N_FFT, d=1.0 / RATE)
    # 45.2456... is Slaney's mel of 8 kHz (Nyquist): N_MELS bands between 0 and it.
    edges = _slaney_hz(np.linspace(0.0, 45.245640471924965, N_MELS + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - fft_hz[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (edges[2:] - edges[:-2]))[:, None]
    out: np.ndarray = weights.astype(np.float32)
    return out


@lru_cache(maxsize=1)
def _window() -> np.ndarray:
    return np.hanning(N_FFT + 1)[:-1].astype(np.float32)  # periodic, as torch.hann_window


def log_mel(audio: np.ndarray) -> np.ndarray:
    """(N_MELS, frames) features of mono float audio at 16 kHz; one frame per 10 ms."""
    x = np.pad(np.asarray(audio, dtype=np.float32), (0, TAIL_PAD))
    if len(x) <= N_FFT // 2:  # too short to reflect: pad with silence first
        x = np.pad(x, (0, N_FFT // 2 + 1 - len(x)))
    x = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")
    frames = 1 + (len(x) - N_FFT) // HOP
    view = np.lib.stride_tricks.as_strided(
        x, (frames, N_FFT), (HOP * x.strides[0], x.strides[0]), writeable=False
    )
    spectrum = np.fft.rfft(view * _window(), axis=-1)
    power = (np.abs(spectrum[:-1]) ** 2).astype(np.float32).T  # the last frame is dropped
    mel = mel_filters() @ power
    logs = np.log10(np.maximum(mel, 1e-10))
    logs = np.maximum(logs, logs.max() - 8.0)
    out: np.ndarray = ((logs + 4.0) / 4.0).astype(np.float32)
    return out


def chunk(features: np.ndarray, pad_frames: int | None = None, least: int = 0) -> np.ndarray:
    """Features padded with zeros (or cut) as a batch of one: to the encoder's 30 s, or
    (``pad_frames``) to the audio's own length plus that many frames, in whole seconds.

    Why shorter than 30 s: the encoder's cost is its input's length, and a segment is often
    5-10 s; CTranslate2 takes a shorter input (the positions it lacks are not used). Whisper
    was trained on 30 s windows, and with too little padding it drops the last word, so the
    caller keeps a margin (2 s measured enough on the labelled set, bench/speech_check.py)."""
    frames = CHUNK_FRAMES
    if pad_frames is not None:
        frames = min(CHUNK_FRAMES, max(least, -(-(features.shape[1] + pad_frames) // 100) * 100))
    out = np.zeros((1, N_MELS, frames), dtype=np.float32)
    n = min(features.shape[1], frames)
    out[0, :, :n] = features[:, :n]
    return out

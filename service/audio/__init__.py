"""Audio as numpy float32 arrays in [-1, 1], mono: trimming, resampling, exact length,
loudness normalisation with a true-peak limiter, and WAV reading/writing; a timeline of any
length is mixed and normalised block by block (stream.py, normalize.py)."""

from service.audio.arrays import (
    SILENCE_THRESHOLD,
    Audio,
    fit_length,
    resample,
    silence,
    speech_bounds,
)
from service.audio.loudness import (
    Loudness,
    LoudnessMeter,
    integrated_lufs,
    limit,
    loudness_range,
    oversample4,
    preload,
    true_peak_db,
)
from service.audio.normalize import Out, _limit_block, normalize, normalize_to_wav
from service.audio.stream import BLOCK, ArraySource, MixSource, Source, TruePeakMeter
from service.audio.wav import quantize, read_wav, to_pcm16, wav_bytes, write_wav

__all__ = [
    "BLOCK",
    "SILENCE_THRESHOLD",
    "ArraySource",
    "Audio",
    "Loudness",
    "LoudnessMeter",
    "MixSource",
    "Out",
    "Source",
    "TruePeakMeter",
    "_limit_block",
    "fit_length",
    "integrated_lufs",
    "limit",
    "loudness_range",
    "normalize",
    "normalize_to_wav",
    "oversample4",
    "preload",
    "quantize",
    "read_wav",
    "resample",
    "silence",
    "speech_bounds",
    "to_pcm16",
    "true_peak_db",
    "wav_bytes",
    "write_wav",
]

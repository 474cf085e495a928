"""Pitch measures for listening checks: the neural voice's tone test (tests) and bench."""

from __future__ import annotations

import numpy as np

from service.ports import TtsEngine, TtsRequest


def f0_track(x: np.ndarray, sr: int, hop_ms: int = 10) -> np.ndarray:
    """Autocorrelation pitch (Hz) every ``hop_ms``; NaN where unvoiced or quiet."""
    n, h = int(0.04 * sr), sr * hop_ms // 1000
    lo, hi = sr // 400, sr // 70
    out = []
    for s in range(0, len(x) - n, h):
        fr = x[s : s + n] - x[s : s + n].mean()
        if np.sqrt(np.mean(fr**2)) < 0.02:
            out.append(np.nan)
            continue
        ac = np.correlate(fr, fr, "full")[n - 1 :]
        ac = ac / (ac[0] + 1e-9)
        lag = lo + int(np.argmax(ac[lo:hi]))
        out.append(sr / lag if ac[lag] > 0.5 else np.nan)
    return np.array(out)


def tone_gap(engine: TtsEngine) -> float:
    """Semitones between tone 1 and tone 3: each of ten syllables said alone with either tone,
    the median voiced pitch of each utterance compared; the median over the ten."""
    gaps = []
    for base in ["ma", "ba", "da", "tang", "gao", "shan", "fei", "lao", "ying", "hua"]:
        medians = []
        for tone in (1, 3):
            speech = engine.synthesize(TtsRequest(f"{base}{tone} .", "zh-baker", "zh"))
            f0 = f0_track(speech.audio, speech.rate)
            f0 = f0[~np.isnan(f0)]
            if len(f0) < 5:
                raise ValueError(f"too few voiced frames for {base}{tone}: {len(f0)}")
            medians.append(float(np.median(f0)))
        gaps.append(12 * np.log2(medians[0] / medians[1]))
    return float(np.median(gaps))

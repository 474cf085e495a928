"""Checks that the zh-baker pack's ONNX models reproduce the tflite originals under narrate's
onnxruntime, on the phoneme sequences the build ran through tflite (service/voicepacks/
zh_baker.py builds; this verifies)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from service.domain.errors import NarrateError

# Verification bounds (measured: see ``verify``). The tflite FastSpeech2 is dynamic-range
# quantized (int8 activations in its hybrid kernels); ONNX runs the same weights in float, so
# outputs agree closely but not bit for bit. The vocoder has no hybrid kernels: near-exact.
MAX_DURATION_DIFF = 1  # frames, per phoneme
MIN_PROSODY_CORR = 0.99  # predicted f0 / energy per phoneme, Pearson
MAX_MEL_DIFF = 0.15  # mean |Δ| of the log-mel, same noise, where durations agree
# The vocoder on tflite's mel: the graph has one int8 quantize/dequantize step, so a sample on
# a rounding edge may land one step (1/127) away; on average they agree to float precision.
MAX_AUDIO_DIFF = 0.01
MAX_AUDIO_MEAN_DIFF = 1e-4


class PackError(NarrateError):
    """The pack cannot be built, verified or installed."""


def _session(path: Path) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


class Probe(TypedDict):
    """One phoneme sequence run both ways: how close onnxruntime came to tflite."""

    phonemes: int
    max_duration_diff: int
    f0_corr: float
    energy_corr: float
    mel_mean_abs_diff: float | None  # None: the mels' shapes differ
    vocoder_max_abs_diff: float
    vocoder_mean_abs_diff: float


class Report(TypedDict):
    probes: list[Probe]  # in pack.json's "verification"


def verify(fastspeech2: Path, vocoder: Path, reference: Path) -> Report:
    """Run the converted models under onnxruntime on the phoneme sequences the build ran
    through tflite, feeding the dropout noise tflite drew, and compare. Raises PackError."""
    ref = np.load(reference)
    fs2, voc = _session(fastspeech2), _session(vocoder)
    report: Report = {"probes": []}
    k = 0
    while f"ids{k}" in ref:
        ids = ref[f"ids{k}"].astype(np.int32)[None]
        out = fs2.run(
            None,
            {
                "input_ids": ids,
                "speaker_ids": np.array([0], np.int32),
                "speed_ratios": np.array([1.0], np.float32),
                "f0_ratios": np.array([1.0], np.float32),
                "energy_ratios": np.array([1.0], np.float32),
                "f0_noise": ref[f"f0_noise{k}"],
                "energy_noise": ref[f"energy_noise{k}"],
            },
        )
        dur_diff = int(np.max(np.abs(out[2].astype(int) - ref[f"durations{k}"].astype(int))))
        f0_corr = float(np.corrcoef(out[3][0], ref[f"f0{k}"][0])[0, 1])
        en_corr = float(np.corrcoef(out[4][0], ref[f"energy{k}"][0])[0, 1])
        same = out[1].shape == ref[f"mel{k}"].shape
        mel_diff = float(np.mean(np.abs(out[1] - ref[f"mel{k}"]))) if same else None
        audio = voc.run(None, {"mels": ref[f"mel{k}"]})[0]
        audio_diff = float(np.max(np.abs(audio - ref[f"audio{k}"])))
        audio_mean = float(np.mean(np.abs(audio - ref[f"audio{k}"])))
        probe: Probe = {
            "phonemes": int(ids.shape[1]),
            "max_duration_diff": dur_diff,
            "f0_corr": round(f0_corr, 5),
            "energy_corr": round(en_corr, 5),
            "mel_mean_abs_diff": None if mel_diff is None else round(mel_diff, 5),
            "vocoder_max_abs_diff": audio_diff,
            "vocoder_mean_abs_diff": audio_mean,
        }
        report["probes"].append(probe)
        bad = []
        if dur_diff > MAX_DURATION_DIFF:
            bad.append(f"durations differ by {dur_diff} frames")
        if min(f0_corr, en_corr) < MIN_PROSODY_CORR:
            bad.append(f"f0/energy correlation {f0_corr:.4f}/{en_corr:.4f}")
        if mel_diff is not None and mel_diff > MAX_MEL_DIFF:
            bad.append(f"mel differs by {mel_diff:.3f} on average")
        if audio_diff > MAX_AUDIO_DIFF or audio_mean > MAX_AUDIO_MEAN_DIFF:
            bad.append(f"vocoder differs by {audio_diff:.2e} (mean {audio_mean:.2e})")
        if bad:
            raise PackError(f"converted models do not reproduce tflite (probe {k}): {bad}")
        k += 1
    if k == 0 or all(p["mel_mean_abs_diff"] is None for p in report["probes"]):
        raise PackError("verification had nothing to compare")
    return report

"""Loudness work in blocks: the same figures and the same 16-bit output as the whole-track
computation, with memory that does not grow with the timeline.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/audio/test_stream.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service import audio as dsp
from tests.unit.audio.test_stream import (
    RATE,
    peak_traced_mib,
    pyloudnorm_lufs,
    speech_sample,
    whole_track_normalize,
)


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    return speech_sample()


def test_block_normalize_lands_where_the_whole_track_did(speech: np.ndarray) -> None:
    y, loud = dsp.normalize(speech, RATE)
    ref, ref_loud = whole_track_normalize(speech, RATE)
    assert len(y) == len(ref)
    assert abs(loud.integrated_lufs + 16) <= 0.2 and loud.true_peak_dbtp <= -1.0
    assert abs(loud.integrated_lufs - ref_loud.integrated_lufs) <= 0.2
    assert abs(loud.true_peak_dbtp - ref_loud.true_peak_dbtp) <= 0.05
    # The figures reported are those of the output itself.
    assert loud.integrated_lufs == round(pyloudnorm_lufs(y, RATE), 2)
    assert loud.true_peak_dbtp == round(dsp.true_peak_db(y), 2)


def test_loudness_memory_does_not_grow_with_the_timeline(
    tmp_path: Path, speech: np.ndarray
) -> None:
    short = peak_traced_mib(tmp_path, speech, 0.5)
    long = peak_traced_mib(tmp_path, speech, 3)  # the whole track alone: 16.5 MiB as float32
    print(f"traced peak: 30 s {short:.1f} MiB, 3 min {long:.1f} MiB")
    assert long < 12 and long < short + 2, (short, long)
    y, rate = dsp.read_wav(tmp_path / "narration-3.wav")
    assert len(y) == 3 * 60 * RATE and rate == RATE
    assert abs(dsp.integrated_lufs(y, RATE) + 16) <= 0.5 and dsp.true_peak_db(y) <= -1.0

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from service import audio as dsp


def espeak(text: str, voice: str = "cmn-latn-pinyin") -> tuple[np.ndarray, int]:
    out = subprocess.run(
        ["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True
    ).stdout
    return dsp.read_wav(out)


def test_loudness_lands_on_target_without_clipping(tmp_path: Path) -> None:
    x, rate = espeak("代码 Agent 的 RL 几乎都用可执行测试当奖励源，再叠 GRPO 做组内相对策略优化。")
    x = np.concatenate([x * 0.3, dsp.silence(rate), x])  # quiet and loud parts
    y, loud = dsp.normalize(x, rate, -16.0, -1.0)
    path = tmp_path / "n.wav"
    dsp.write_wav(path, y, rate)
    back, back_rate = dsp.read_wav(path)
    assert back_rate == rate  # sample rate unchanged
    assert abs(dsp.integrated_lufs(back, rate) + 16) <= 0.5
    assert dsp.true_peak_db(back) <= -1.0
    pcm = np.frombuffer(path.read_bytes()[44:], dtype="<i2")
    assert np.sum(np.abs(pcm.astype(np.int32)) >= 32767) == 0
    assert loud.integrated_lufs == round(dsp.integrated_lufs(back, rate), 2)


def test_limiter_never_overshoots_the_ceiling() -> None:
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(48000) * 0.5).astype(np.float32)
    y = dsp.limit(x, 48000, -3.0)
    assert dsp.true_peak_db(y) <= -2.9


def test_fit_length_is_sample_exact() -> None:
    x = np.ones(1000, dtype=np.float32)
    assert len(dsp.fit_length(x, 1234)) == 1234
    assert len(dsp.fit_length(x, 999)) == 999
    assert dsp.fit_length(x, 1234)[1000:].max() == 0


def test_resample_keeps_duration() -> None:
    x = np.zeros(22050, dtype=np.float32)
    assert len(dsp.resample(x, 22050, 24000)) == 24000


def test_read_wav_names_what_is_wrong_with_bytes_that_are_not_pcm16(tmp_path: Path) -> None:
    import wave

    from service.domain.errors import AudioFormatError, NarrateError

    with pytest.raises(AudioFormatError, match="not a readable WAV"):
        dsp.read_wav(b"RIFF but not really a wave file")
    eight_bit = tmp_path / "u8.wav"
    with wave.open(str(eight_bit), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes(800))
    with pytest.raises(AudioFormatError, match="expected 16-bit PCM WAV, got 8-bit") as err:
        dsp.read_wav(eight_bit)
    assert isinstance(err.value, NarrateError)

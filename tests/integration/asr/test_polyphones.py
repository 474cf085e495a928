"""The 多音字 test with the real recogniser on real Kokoro audio: 执行 read zhí háng (the
syllable swapped behind the check's back, as bench/speech_check.py's `reading` items) is
flagged naming 行 and both readings, though Whisper writes 执行 either way; read zhí xíng it
is not flagged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.adapters.asr import WhisperRecogniser, fold_simplified
from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.adapters.tts.kokoro import KokoroEngine
from service.config import ROOT
from service.domain.speech import front_end
from service.pipeline.listen import Listener
from service.ports import TtsRequest

TEXT = "代码的训练几乎都用可执行测试当奖励。"
TOOLS = speech_tools()
LEXICON = load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> KokoroEngine:
    data = tmp_path_factory.mktemp("kokoro-data")
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "voices", "install", "kokoro"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NARRATE_DATA_DIR": str(data)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return KokoroEngine(Path(data) / "voices" / "kokoro")


def test_a_polyphone_read_the_other_way_is_flagged_and_the_right_reading_is_not(
    engine: KokoroEngine,
) -> None:
    listener = Listener(WhisperRecogniser(), lambda: TOOLS, lambda s: {}, fold_simplified)
    said = front_end(TEXT, "zh", "pinyin", LEXICON, TOOLS).text
    assert "zhi2 xing2" in said
    for text, wrong in ((said, False), (said.replace("zhi2 xing2", "zhi2 hang2"), True)):
        speech = engine.synthesize(TtsRequest(text, "zf_xiaoyi", "zh"))
        check = listener.judge(TEXT, "zh", LEXICON, speech.audio, speech.rate)
        named = [(d.said, d.heard) for d in check.diff if d.said.startswith("行")]
        assert check.flagged == wrong, check
        assert named == ([("行 (xing2)", "行 (hang2)")] if wrong else []), check

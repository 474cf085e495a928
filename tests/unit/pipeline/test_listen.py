"""The speech check in the pipeline, with a recogniser that says what the test tells it:
what is checked or skipped, the warning, on_mismatch retry (the better reading kept, its
audio too) and fail (naming the segments)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service import audio as dsp
from service import wiring
from service.adapters.asr import fold_simplified
from service.config import get_settings
from service.domain.errors import SpeechMismatchError
from service.domain.script import parse_script
from service.domain.spec import RenderOptions
from service.pipeline.listen import Listener, check_failed, render_checked, retry_plan
from service.pipeline.results import JobPlan, SegmentResult
from service.ports.asr import Transcript

SCRIPT = """  • Language: zh

[段 1 · 6 秒] 今天的天气很好。

[段 2 · 6 秒] 我们一起去公园散步吧。
"""
PIPELINE = wiring.pipeline(get_settings())
RATE = 24000


class Heard:
    """A recogniser that hears, for audio of a given level, the text the test set for it."""

    name = "fake"
    max_seconds = 600.0

    def __init__(self, texts: dict[int, str]) -> None:
        self.texts = texts
        self.calls = 0

    def transcribe(
        self, audio: np.ndarray, rate: int, language: str, timed: bool = False
    ) -> Transcript:
        self.calls += 1
        level = round(float(np.abs(audio).max()) * 10)
        return Transcript(
            self.texts[level], language, audio_seconds=len(audio) / rate, cpu_seconds=0.1
        )


class _Work:
    """The two Workspace calls the check makes, on a directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.kept: list[str] = []

    def local(self, name: str) -> Path:
        return self.root / name

    def keep(self, name: str) -> None:
        self.kept.append(name)


def Work(root: Path) -> Any:
    return _Work(root)


def plan(**options: object) -> JobPlan:
    return PIPELINE.door.plan(parse_script(SCRIPT), RenderOptions.model_validate(options))


def cast(p: JobPlan, *chain: str) -> JobPlan:
    """The plan with each segment's voice chain set, whatever voices this host has installed
    (casting zh-baker at plan time needs its pack)."""
    return p.model_copy(update={"voices": [chain] * len(p.voices)})


def renderer(levels: dict[str, int]):  # type: ignore[no-untyped-def]
    """A segment render whose audio's level says which voice (or rate) spoke it."""

    def render(p: JobPlan, index: int, work: Any) -> SegmentResult:
        voice = p.voices[index][0]
        rate = p.spec.segments[index].rate
        level = levels.get(f"{voice}{rate or ''}", levels.get(voice, 1))
        name = f"segment-{index:03d}.wav"
        dsp.write_wav(work.local(name), np.full(RATE, level / 10, dtype=np.float32), RATE)
        return SegmentResult(
            index=index, slot_ms=6000, natural_ms=1000, speech_ms=1000, native_rate=1.0,
            stretch_ratio=1.0, engine=PIPELINE.catalog.get(voice).engine,
            voice=voice, sample_rate=RATE, audio=name, phrases=[],
        )  # fmt: skip

    return render


def listener(texts: dict[int, str]) -> Listener:
    return Listener(Heard(texts), lambda: PIPELINE.speech, PIPELINE.plan_lexicon, fold_simplified)


def test_a_segment_heard_otherwise_is_flagged_with_a_warning_naming_the_words(
    tmp_path: Path,
) -> None:
    heard = listener({1: "今天的天氣很好", 2: "明天会下雨"})  # Traditional: folded
    p = plan(voice="zh-CN-XiaoxiaoNeural")
    work = Work(tmp_path)
    right = render_checked(renderer({}), heard, PIPELINE.catalog, p, 0, work)
    assert right.speech_check is not None and not right.speech_check.flagged
    assert right.speech_check.error_rate == 0.0 and right.warnings == []
    wrong = render_checked(
        renderer({"zh-CN-XiaoxiaoNeural": 2}), heard, PIPELINE.catalog, p, 0, work
    )
    assert wrong.speech_check is not None and wrong.speech_check.flagged
    [w] = wrong.warnings
    assert (w.code, w.segment) == ("speech.mismatch", 1) and "heard as “会下雨”" in w.message
    with pytest.raises(SpeechMismatchError, match="flagged segment 1"):
        check_failed(
            p.model_copy(update={"options": p.options.model_copy(update={"on_mismatch": "fail"})}),
            [wrong],
        )
    check_failed(p, [wrong])  # warn: no error


def test_espeak_is_skipped_without_loading_the_recogniser_and_off_means_no_check(
    tmp_path: Path,
) -> None:
    heard = listener({})
    p = plan(engine="espeak")
    result = render_checked(renderer({}), heard, PIPELINE.catalog, p, 0, Work(tmp_path))
    assert result.speech_check is not None and result.speech_check.status == "skipped"
    assert "not checkable" in (result.speech_check.reason or "") and result.warnings == []
    off = plan(engine="espeak", check_speech=False)
    assert (
        render_checked(renderer({}), heard, PIPELINE.catalog, off, 0, Work(tmp_path)).speech_check
        is None
    )
    assert heard.recogniser.calls == 0  # type: ignore[union-attr]


def test_retry_keeps_the_next_voice_when_it_reads_better(tmp_path: Path) -> None:
    heard = listener({2: "明天会下雨", 1: "今天的天气很好"})
    p = cast(plan(on_mismatch="retry"), "zh-CN-XiaoxiaoNeural", "zh-baker")
    assert retry_plan(p, 0, renderer({})(p, 0, Work(tmp_path)), PIPELINE.catalog).voices[0] == (
        "zh-baker",
    )
    result = render_checked(
        renderer({"zh-CN-XiaoxiaoNeural": 2}), heard, PIPELINE.catalog, p, 0, Work(tmp_path)
    )
    assert result.voice == "zh-baker" and result.speech_check is not None
    assert not result.speech_check.flagged and len(result.speech_check.tries) == 2
    assert result.warnings == []


def test_retry_keeps_the_first_reading_and_its_audio_when_the_retry_is_worse(
    tmp_path: Path,
) -> None:
    heard = listener({2: "今天天气好", 3: "明天会下雨"})
    p = cast(plan(on_mismatch="retry"), "zh-baker")
    work = Work(tmp_path)
    again = retry_plan(p, 0, renderer({})(p, 0, work), PIPELINE.catalog)
    assert again.voices[0] == ("zh-baker",) and again.spec.segments[0].rate == "-15%"
    result = render_checked(
        renderer({"zh-baker": 2, "zh-baker-15%": 3}), heard, PIPELINE.catalog, p, 0, work
    )
    assert result.voice == "zh-baker" and result.speech_check is not None
    assert result.speech_check.transcript == "今天天气好"
    audio, _ = dsp.read_wav(work.local(result.audio))
    assert round(float(np.abs(audio).max()) * 10) == 2  # the first reading's audio is back


class Scored(Heard):
    """A recogniser that also scores forced transcripts: the one with ``favoured`` wins."""

    score_seconds = 14.9

    def __init__(self, texts: dict[int, str], favoured: str) -> None:
        super().__init__(texts)
        self.favoured = favoured
        self.scored: list[list[str]] = []

    def score(self, audio: np.ndarray, rate: int, language: str, texts: list[str]) -> list[float]:
        self.scored.append(texts)
        return [-20.0 if self.favoured in t else -40.0 for t in texts]


def judge(recogniser: Heard, text: str, seconds: float = 1.0) -> Any:
    check = Listener(recogniser, lambda: PIPELINE.speech, PIPELINE.plan_lexicon, fold_simplified)
    audio = np.full(int(RATE * seconds), 0.1, dtype=np.float32)
    return check.judge(text, "zh", PIPELINE.lexicon(plan().spec), audio, RATE)


def test_a_polyphone_the_audio_reads_the_other_way_is_flagged_naming_both_readings() -> None:
    # 银行 heard as 银行 (Whisper writes the glyph the context wants), but the audio scores
    # higher with 型 (xíng) in its place than with 航 (háng).
    wrong = Scored({1: "银行的系统很忙"}, favoured="银型")
    check = judge(wrong, "银行的系统很忙。")
    assert check.flagged and check.error_rate == 0.0
    assert [(d.said, d.heard) for d in check.diff] == [("行 (hang2)", "行 (xing2)")]
    assert wrong.scored == [["银航的系统很忙", "银型的系统很忙"]]
    right = Scored({1: "银行的系统很忙"}, favoured="银航")
    assert not judge(right, "银行的系统很忙。").flagged


def test_the_polyphone_test_needs_a_scorer_and_one_window() -> None:
    assert not judge(Heard({1: "银行的系统很忙"}), "银行的系统很忙。").flagged
    long = Scored({1: "银行的系统很忙"}, favoured="银型")
    assert not judge(long, "银行的系统很忙。", seconds=20.0).flagged and long.scored == []

"""Casting with kokoro: ``auto`` is edge -> kokoro -> espeak-ng, a speaker keeps its gender (and
its British accent) offline, ``--engine kokoro`` without the pack is refused naming the command
that installs it, and falling through a missing pack is one warning that says so."""

from __future__ import annotations

import numpy as np
import pytest

from service.adapters.files.catalog import load_catalog
from service.adapters.text.pinyin import speech_tools
from service.config import ROOT
from service.domain.errors import EngineError, InputError
from service.domain.notices import Notice
from service.domain.spec import JobSpec
from service.pipeline.voicing import SpokenSegment, Voicing
from service.ports import Speech, TtsRequest

CATALOG = load_catalog(ROOT / "voices" / "catalog.json")


def spec(language: str, voice: str | None = None) -> JobSpec:
    text = "你好。" if language == "zh" else "Hello."
    return JobSpec.model_validate(
        {"language": language, "voice": voice, "segments": [{"text": text, "seconds": 2}]}
    )


def test_auto_is_edge_then_kokoro_then_espeak() -> None:
    chain = CATALOG.cast(spec("zh"), installed=("kokoro",))
    assert [chain.engine, *(v.engine for v in (chain.fallback, *chain.more) if v)] == [
        "edge",
        "kokoro",
        "espeak",
    ]
    assert chain.fallback is not None and chain.fallback.id == "zm_yunxi"  # edge's default: male


@pytest.mark.parametrize(
    ("language", "voice", "want"),
    [
        ("zh", "zh-CN-XiaoxiaoNeural", "zf_xiaoxiao"),  # edge's voices by name
        ("zh", "zh-CN-YunxiaNeural", "zm_yunxia"),
        ("zh", "zh-CN-liaoning-XiaobeiNeural", "zf_xiaobei"),
        ("zh", "zh-TW-HsiaoChenNeural", "zf_xiaoyi"),  # else the default of the gender
        ("zh", "zh-CN-YunjianNeural", "zm_yunjian"),
        # a man without a namesake: the male voice the recogniser heard best (issue 32)
        ("zh", "zh-TW-YunJheNeural", "zm_yunxia"),
        ("zh", "zh-HK-WanLungNeural", "zm_yunxia"),
        ("en", "en-US-AriaNeural", "af_heart"),
        ("en", "en-GB-RyanNeural", "bm_george"),
        ("en", "en-GB-SoniaNeural", "bf_emma"),
    ],
)
def test_kokoro_keeps_the_speakers_voice_gender_and_accent(
    language: str, voice: str, want: str
) -> None:
    chain = CATALOG.cast(spec(language, voice))
    assert chain.fallback is not None and chain.fallback.id == want


def test_engine_kokoro_without_its_pack_names_the_install_command() -> None:
    with pytest.raises(InputError, match="run: narrate voices install kokoro"):
        CATALOG.cast(spec("zh"), engine="kokoro", installed=())
    cast = CATALOG.cast(spec("zh", "zm_yunyang"), engine="kokoro", installed=("kokoro",))
    assert (cast.engine, cast.voice.id, cast.fallback) == ("kokoro", "zm_yunyang", None)


def test_every_kokoro_voice_says_where_it_comes_from() -> None:
    voices = CATALOG.filter(engine="kokoro")
    assert {v.language for v in voices} == {"zh", "en"}
    assert all("Apache-2.0" in v.note and "synthetic audio" in v.note for v in voices)
    accents = {v.id for v in voices if "regional accent" in v.note}
    assert accents == {"zf_xiaobei", "zf_xiaoni"}


class Down:
    name = "edge"
    reader = "text"
    version = "down"
    min_rate, max_rate = 0.5, 2.0

    def synthesize(self, request: TtsRequest) -> Speech:
        raise EngineError("edge", "cannot reach the service")


class Offline:
    name = "espeak"
    reader = "pinyin"
    version = "fake"
    min_rate, max_rate = 0.5, 2.0

    def synthesize(self, request: TtsRequest) -> Speech:
        return Speech(np.full(2400, 0.1, np.float32), 24000)


def test_falling_through_a_missing_pack_is_one_warning_naming_the_command() -> None:
    voicing = Voicing({"edge": Down(), "espeak": Offline()}, CATALOG)
    speaker = SpokenSegment("你好。", "zh", {}, speech_tools(), [(0, 3)], 16, number=1)
    warnings: list[Notice] = []
    engine, voice, _ = voicing.speak(CATALOG.cast(spec("zh")), speaker, 1.0, warnings, {})
    assert (engine, voice) == ("espeak", "cmn-latn-pinyin")
    assert len(warnings) == 1 and warnings[0].code == "engine.fallback"
    assert "kokoro is not installed (run: narrate voices install kokoro)" in warnings[0].message
    assert "fell back to espeak voice cmn-latn-pinyin" in warnings[0].message

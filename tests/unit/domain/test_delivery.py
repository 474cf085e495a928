"""A voice and delivery per segment: speakers, the Markdown header syntax, casting, and a
real espeak render where two speakers are heard in two voices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.adapters.files.catalog import load_catalog
from service.config import get_settings
from service.domain.errors import ScriptError, VoiceError
from service.domain.fields import rate_multiplier
from service.domain.markdown import to_markdown
from service.domain.script import parse_markdown, parse_script
from service.domain.spec import spec_from_data
from service.domain.voices import Catalog

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


def catalog() -> Catalog:
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


# -- the whole catalog ---------------------------------------------------------------------


def test_catalog_holds_every_chinese_and_english_edge_voice() -> None:
    cat = catalog()
    zh = {v.id for v in cat.filter("zh", "edge")}
    assert {
        "zh-CN-liaoning-XiaobeiNeural",
        "zh-CN-shaanxi-XiaoniNeural",
        "zh-HK-WanLungNeural",
        "zh-TW-HsiaoChenNeural",
    } <= zh
    locales = {v.locale for v in cat.filter("en", "edge")}
    assert {"en-US", "en-GB", "en-AU", "en-IN", "en-NZ", "en-ZA", "en-IE", "en-SG"} <= locales
    assert len(cat.filter(engine="edge")) > 300
    assert {v.locale for v in cat.filter("zh-HK")} == {"zh-HK"}
    source = json.loads(get_settings().voices_file.read_text(encoding="utf-8"))["source"]
    assert "wingman-ai" in source["edge"]  # where the snapshot came from


def test_a_dialect_voice_can_be_cast_and_a_typo_gets_suggestions() -> None:
    spec = spec_from_data(
        {"segments": [{"text": "好", "seconds": 2, "voice": "zh-CN-liaoning-XiaobeiNeural"}]}
    )
    assert catalog().cast(spec, segment=0).voice.locale == "zh-CN-liaoning"
    with pytest.raises(VoiceError) as err:
        catalog().get("zh-TW-HsiaoChen")
    assert err.value.suggestions[0] == "zh-TW-HsiaoChenNeural"


def test_refresh_replaces_edge_voices_and_keeps_espeak_and_defaults(tmp_path: Path) -> None:
    from service.adapters.files.catalog import refresh_catalog

    path = tmp_path / "catalog.json"
    path.write_text(get_settings().voices_file.read_text(encoding="utf-8"), encoding="utf-8")
    listed = [
        {
            "ShortName": "zh-CN-YunxiNeural",
            "Locale": "zh-CN",
            "Gender": "Male",
            "FriendlyName": "Microsoft Yunxi Online (Natural) - Chinese (Mainland)",
        },
        {"ShortName": "zh-CN-XiaoxiaoNeural", "Locale": "zh-CN", "Gender": "Female"},
        {"ShortName": "en-GB-SoniaNeural", "Locale": "en-GB", "Gender": "Female"},
        {"ShortName": "bogus", "Locale": "", "Gender": ""},
    ]
    assert refresh_catalog(path, listed) == 3
    cat = load_catalog(path)
    assert [v.id for v in cat.filter(engine="edge")] == [
        "en-GB-SoniaNeural",
        "zh-CN-XiaoxiaoNeural",
        "zh-CN-YunxiNeural",
    ]
    assert cat.default("edge", "zh").id == "zh-CN-YunxiNeural"  # kept
    assert cat.default("edge", "en").id == "en-GB-SoniaNeural"  # Andrew is gone: the first
    assert cat.default("espeak", "zh").id == "cmn-latn-pinyin"
    assert cat.by_id["zh-CN-YunxiNeural"].name.startswith("Microsoft Yunxi")


def test_two_edge_speakers_stay_two_voices_offline() -> None:
    """With edge out of reach (engine espeak, or auto's fallback), each speaker falls back
    to the offline voice of its gender."""
    spec = parse_markdown(TWO_SPEAKERS)
    cat = catalog()
    for engine in ("espeak", "auto"):
        cast = [cat.cast(spec, engine=engine, segment=i) for i in range(2)]
        offline = [c.voice if engine == "espeak" else c.more[-1] for c in cast]
        assert [v.id for v in offline if v] == ["cmn-latn-pinyin", "cmn-latn-pinyin+f3"]
    # auto: kokoro before espeak-ng, of each speaker's gender too
    kokoro = [cat.cast(spec, engine="auto", segment=i).fallback for i in range(2)]
    assert [v.id for v in kokoro if v] == ["zm_yunxi", "zf_xiaoxiao"]

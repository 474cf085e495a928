"""Mandarin that sounds like Mandarin, checked with what espeak-ng itself reports (-x phonemes)
and with real offline renders of the bundled examples."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import srt

from service.adapters.text.pinyin import load_lexicon, speech_tools
from service.adapters.tts.espeak import EspeakEngine, runs
from service.config import ROOT
from service.domain.script import parse_script
from service.domain.speech import front_end
from service.domain.text import comparable
from tests.support.helpers import narrate

EXAMPLES = [
    ROOT / "examples" / "gagar-grpo-quality-ranking.md",
    ROOT / "examples" / "kv-cache-quantization.md",
    ROOT / "examples" / "zh-rag-rerank.md",  # 3e-4, x86, 《…》, line-final ；：
]
# espeak-ng's English phonemes of the digits 1-5 (one, two, three, four, five): what the `cmn`
# voice says after each hanzi for its tone number.
TONE_DIGITS = re.compile(r"w'0n|t'u:|Tr'i:|f'o@|f'aIv")
SENTENCES = [
    "这几天天气很好。",
    "代码 Agent 的 RL 几乎都用可执行测试当奖励源,再叠 GRPO 做组内相对策略优化。",
    "Flash 310B 总参数做受控代码实验,Pro 1.02T 做大规模混合任务 RL。",
    "长上下文推理最贵的不是算力,一百二十八 K 的上下文,压到 2 比特?",
]


def phonemes(text: str, voice: str = "cmn-latn-pinyin") -> str:
    lexicon = load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")
    spoken = front_end(text, "zh", "pinyin", lexicon, speech_tools())
    return " ".join(p for _, p in EspeakEngine().phonemes(spoken.text, voice))


def raw_cmn(text: str) -> str:
    return subprocess.run(
        ["espeak-ng", "-v", "cmn", "-q", "-x", text], capture_output=True, text=True, check=True
    ).stdout


def test_the_detector_catches_the_shipped_cmn_voice() -> None:
    # The bug this guards against is real on this machine: the check below can fail.
    assert TONE_DIGITS.search(raw_cmn("这几天天气很好"))


@pytest.mark.parametrize("sentence", SENTENCES)
def test_chinese_phonemes_have_no_english_tone_digits(sentence: str) -> None:
    out = phonemes(sentence)
    assert not TONE_DIGITS.search(out), out
    assert "(en)" not in out  # no language switch inside a Mandarin run


def test_latin_runs_are_read_by_the_english_voice() -> None:
    text = "dai4 ma3 Agent de5 G R P O rollout"
    assert [v for _, v in runs(text, "cmn-latn-pinyin+f3")] == [
        "cmn-latn-pinyin+f3",
        "en-us+f3",
        "cmn-latn-pinyin+f3",
        "en-us+f3",
    ]
    said = EspeakEngine().phonemes(text, "cmn-latn-pinyin")[0][1]
    # Mandarin syllables with tone contours, English words with English phonemes.
    assert "t'ai51_| m'A214_|" in said and "'eIdZ@nt" in said and "t@11_|" in said
    assert "dZ'i:" in said and "r'oUlaUt" in said


def test_the_cache_key_covers_the_phrase_split() -> None:
    from service.adapters.tts.cache import cache_key
    from service.ports import TtsRequest

    class Fake:
        name, version = "espeak", "1"

    text = "dai4 ma3 Agent de5 R L"
    one = TtsRequest(text, "cmn-latn-pinyin", "zh", phrases=((0, 15), (15, len(text))))
    two = TtsRequest(text, "cmn-latn-pinyin", "zh", phrases=((0, 9), (9, len(text))))
    assert cache_key(Fake(), one) != cache_key(Fake(), two)  # type: ignore[arg-type]
    assert cache_key(Fake(), one) == cache_key(Fake(), one)  # type: ignore[arg-type]


def _latin_and_numbers(text: str) -> tuple[list[str], list[str]]:
    # A letter right after a number is a magnitude (310B: 三千一百亿), said as part of it.
    latin = re.findall(r"(?<![\d.])[A-Za-z][A-Za-z'\-]*", text)
    return latin, re.findall(r"\d+(?:\.\d+)?", text)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_offline_render_of_the_examples(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = narrate("render", example, "--out", out, "--engine", "espeak")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    spec = parse_script(example.read_text(encoding="utf-8"))
    engine = EspeakEngine()
    for seg, m in zip(spec.segments, manifest["segments"], strict=True):
        assert m["text"] == seg.text and m["voice"] == "cmn-latn-pinyin"
        spoken = m["spoken_text"]
        # Every Latin term is spoken (as a word or spelled letter by letter) ...
        latin, numbers = _latin_and_numbers(seg.text)
        letters = spoken.replace(" ", "").lower()
        for word in latin:
            assert word in spoken or word.replace("-", "").lower() in letters, (word, spoken)
        # ... every number is read out: no Arabic digit is left but the pinyin tone numbers.
        assert not re.search(r"(?<![a-z])\d", spoken), spoken
        # Every hanzi is one syllable, and every number adds at least one: none was dropped.
        hanzi = re.findall(r"[\u4e00-\u9fff]", seg.text)
        assert len(re.findall(r"\b[a-z]+[1-5]\b", spoken)) >= len(hanzi) + len(numbers)
        # ... and espeak-ng's own phonemes for it hold no English tone digit.
        said = " ".join(p for _, p in engine.phonemes(spoken, m["voice"]))
        assert not TONE_DIGITS.search(said), said
        # The offline render fits the slot without squeezing past the limits.
        assert m["speech_duration"] <= m["allotted"] + 1e-6
        assert m["end"] - m["start"] == pytest.approx(m["allotted"], abs=1e-3)
    assert manifest["warnings"] == []
    # Subtitles show the script's own text, not the spoken text.
    # (narration and the qualifier overlays apart: an overlay may show during any segment)
    subs = list(srt.parse((out / "subtitles.srt").read_text(encoding="utf-8")))
    top = [c.content for c in subs if c.content.startswith("{")]
    shown = comparable("".join(c.content for c in subs if not c.content.startswith("{")))
    assert shown == comparable("".join(s.text for s in spec.segments))
    assert comparable("".join(cue_texts_of(top))) == comparable("".join(spec.qualifiers))


def cue_texts(path: Path) -> list[str]:
    return cue_texts_of([c.content for c in srt.parse(path.read_text(encoding="utf-8"))])


def cue_texts_of(contents: list[str]) -> list[str]:
    return [re.sub(r"\{\\[^}]*\}", "", c) for c in contents]  # without {\an8}


def test_a_job_lexicon_entry_changes_speech_not_subtitles(tmp_path: Path) -> None:
    body = "[段 1 · 6 秒] 这样也行,代码 Agent 用 GRPO 做优化。\n"
    plain, fixed = tmp_path / "plain.md", tmp_path / "fixed.md"
    plain.write_text(body, encoding="utf-8")
    fixed.write_text(body + "\n读音: 行=háng; GRPO=gé rùn pǔ ōu\n", encoding="utf-8")
    results = []
    for script in (plain, fixed):
        out = tmp_path / script.stem
        proc = narrate("render", script, "--out", out, "--engine", "espeak")
        assert proc.returncode == 0, proc.stderr
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        spoken = " ".join(manifest["segments"][0]["spoken_text"].split())  # words: two spaces
        results.append((spoken, cue_texts(out / "subtitles.srt")))
    (spoken_a, subs_a), (spoken_b, subs_b) = results
    assert "ye3 xing2" in spoken_a and "G R P O" in spoken_a
    assert "ye3 hang2" in spoken_b and "ge2 run4 pu3 ou1" in spoken_b and "G R P O" not in spoken_b
    assert subs_a == subs_b  # what the viewer reads does not change (only when)


def test_a_bad_lexicon_entry_exits_2(tmp_path: Path) -> None:
    """parse and render alike; one bad entry is enough here (every way an entry can be wrong:
    tests/unit/domain/test_pronunciation_lines.py, in process)."""
    script = tmp_path / "bad.md"
    script.write_text("[段 1 · 5 秒] 一个 50 行的函数\n\n读音: 行=xing9\n", encoding="utf-8")
    message = "'行': 'xing9' is not pinyin"
    for command in (
        ("parse", script),
        ("render", script, "--out", tmp_path / "o", "--engine", "espeak"),
    ):
        proc = narrate(*command)
        assert proc.returncode == 2
        assert (
            "pronunciations" in proc.stderr and message in proc.stderr and "line 3" in proc.stderr
        )
    spec = tmp_path / "bad.json"
    spec.write_text(
        json.dumps({"segments": [{"text": "一行", "seconds": 3}], "pronunciations": {"行": "qq3"}})
    )
    proc = narrate("parse", spec)
    assert proc.returncode == 2 and "pronunciations" in proc.stderr and "'qq3'" in proc.stderr


EN_EXAMPLE = ROOT / "examples" / "en-inference-costs.md"
# What espeak-ng must never be given: digits, slashes, currency and math signs, brackets.
RAW = re.compile(r"[\d/\\$€£¥%~≈<>≤≥=+±×÷^*#@&|_()\[\]{}→]")


def test_offline_english_reads_numbers_like_a_narrator(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = narrate("render", EN_EXAMPLE, "--out", out, "--engine", "espeak")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    spec = parse_script(EN_EXAMPLE.read_text(encoding="utf-8"))
    said = [m["spoken_text"] for m in manifest["segments"]]
    for seg, m, spoken in zip(spec.segments, manifest["segments"], said, strict=True):
        assert m["text"] == seg.text and m["voice"] == "en-us"
        assert not RAW.search(spoken), spoken  # every number, sign and slash is words
        assert m["speech_duration"] <= m["allotted"] + 1e-6
    assert "forty-one point five billion dollars" in said[0] and "U S cloud" in said[0]
    assert "requests per minute at thirty-five cents per million tokens" in said[1]
    assert "about forty percent" in said[2] and "one fifth" in said[2]
    # espeak-ng itself says "billion dollars" and "per minute", not "dollar ... B" or "slash".
    engine = EspeakEngine()
    phon = " ".join(p for _, p in engine.phonemes(" ".join(said[:2]), "en-us"))
    assert "b'Ili@n d'0l3z" in phon and "p3: m'InIt" in phon and "sl'aS" not in phon, phon
    assert manifest["warnings"] == []
    # Subtitles show the script's own text; no line ends on "U.S." or a number before its unit.
    subs = list(srt.parse((out / "subtitles.srt").read_text(encoding="utf-8")))
    cues = [c.content for c in subs if not c.content.startswith("{")]  # narration, not {\an8}
    assert comparable(" ".join(cues)) == comparable(" ".join(s.text for s in spec.segments))
    lines = [line for cue in cues for line in cue.split("\n")]
    assert not [x for x in lines if x.endswith(("U.S.", "12,500", "$", "~", "e.g.", "Dr."))], lines

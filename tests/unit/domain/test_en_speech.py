"""The English reader (what espeak-ng is given for English) and the new Mandarin readings:
the reading tables row by row, the span map back to the script, and no raw symbol left."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters.text.segmenter import cjk_words
from service.config import ROOT
from service.domain.script import parse_script
from service.domain.speech import Tools, front_end, parse_entries
from service.domain.text import split_phrases
from tests.support.data import DATA

# Pinyin as the characters themselves: the Mandarin rows are written in hanzi.
HANZI = Tools(cjk_words, lambda w: list(w), lambda s: None)
# What espeak-ng must never be given: digits, slashes, currency and math signs, brackets.
RAW = re.compile(r"[\d/\\$€£¥%~≈<>≤≥=+±×÷^*#@&|_()\[\]{}→]")


def table(name: str) -> list[tuple[str, str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, said = line.split("\t")
            rows.append((text, said))
    return rows


def en(text: str, reader: str = "pinyin", lexicon: dict[str, str] | None = None) -> str:
    spoken = front_end(text, "en", reader, parse_entries(lexicon or {}), HANZI)
    return re.sub(r"\s+", " ", spoken.text).strip()


def zh(text: str) -> str:
    said = re.sub(r"\s+", " ", front_end(text, "zh", "pinyin", {}, HANZI).text).strip()
    return re.sub(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])", "", said)


def test_the_tables_are_big_enough() -> None:
    assert len(table("en_readings.tsv")) >= 80 and len(table("zh_readings.tsv")) >= 20


@pytest.mark.parametrize(("text", "expected"), table("en_readings.tsv"))
def test_english_reads_like_a_narrator(text: str, expected: str) -> None:
    assert en(text) == expected


@pytest.mark.parametrize(("text", "expected"), table("zh_readings.tsv"))
def test_mandarin_readings(text: str, expected: str) -> None:
    assert zh(text) == expected


def test_edge_gets_the_script_with_only_the_lexicon() -> None:
    lexicon = {"GRPO": "G R P O", "Kubernetes": "koo-ber-net-eez"}
    text = "GRPO on Kubernetes costs $41.5B, ~40% of 12,500 requests/min."
    assert en(text, "text", lexicon) == (
        "G R P O on koo-ber-net-eez costs $41.5B, ~40% of 12,500 requests/min."
    )
    # The offline reader applies the lexicon to English words too.
    assert en("GRPO on Kubernetes", "pinyin", lexicon) == "G R P O on koo-ber-net-eez"


def test_spelled_acronyms_agree_between_the_readers() -> None:
    # NASA and LoRA are said as words by both readers; GPU and GRPO spelled by both.
    for word, said in (("NASA", "NASA"), ("LoRA", "LoRA"), ("GPU", "G P U"), ("GRPO", "G R P O")):
        assert en(word) == said
        assert zh(f"用 {word} 做") == f"用 {said} 做"


def test_phrase_spans_map_to_spoken_and_back_exactly() -> None:
    text = (
        "In Q3 2026, U.S. cloud providers spent roughly $41.5B on inference; the 3rd "
        "configuration served 12,500 requests/min at $0.35 per 1M tokens, e.g. on 2026-09-30."
    )
    spoken = front_end(text, "en", "pinyin", {}, HANZI)
    for a, b in split_phrases(text, 42, language="en"):
        sa, sb = spoken.to_spoken(a), spoken.to_spoken(b)
        assert spoken.span_to_source(sa, sb) == (a, b)
        assert not RAW.search(spoken.text[sa:sb]), spoken.text[sa:sb]
    assert spoken.to_spoken(len(text)) == len(spoken.text)


def test_no_raw_symbol_reaches_espeak_from_the_bundled_examples() -> None:
    for path in sorted((ROOT / "examples").glob("*.md")):
        spec = parse_script(path.read_text(encoding="utf-8"))
        if spec.language != "en":
            continue
        for seg in spec.segments:
            spoken = front_end(seg.text, "en", "pinyin", {}, HANZI)
            assert not RAW.search(spoken.text), (path.name, spoken.text)
            assert spoken.warnings == []


_PIECES = st.sampled_from(
    [
        "$41.5B", "~40%", "1/5", "12,500", "requests/min", "$0.35", "per 1M tokens", "3x",
        "U.S.", "e.g.", "Dr.", "2026-09-30", "10:30", "3:1", "v0.2", "GPT-4o", "p99", "45-90",
        "≥", "<", "€2M", "¥299", "3e-4", "x86", "(", ")", "—", "...", " ", ", ", ". ", "the",
        "GPU", "NASA", "70B", "ms", "GB/s", "#", "&", "+", "=", "*", "'", '"', "-", "/", "%",
    ]
)  # fmt: skip


@settings(deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), min_size=1, max_size=16).map("".join))
def test_any_text_reaches_espeak_without_raw_symbols_and_maps_end_to_end(text: str) -> None:
    spoken = front_end(text, "en", "pinyin", {}, HANZI)
    assert not RAW.search(spoken.text), (text, spoken.text)
    assert spoken.to_spoken(0) == 0 and spoken.to_spoken(len(text)) == len(spoken.text)
    assert spoken.to_source(len(spoken.text)) == len(text)
    src = spk = 0
    for p in spoken.pieces:  # pieces partition both texts
        assert (p.src_start, p.spk_start) == (src, spk)
        src, spk = p.src_end, p.spk_end
    assert (src, spk) == (len(text), len(spoken.text))

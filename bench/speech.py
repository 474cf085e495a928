"""Benchmark the speech front-end and espeak-ng on the bundled examples (examples/*.md).

Prints, per example: how many spans the front-end rewrote for each reader (pinyin: espeak-ng;
text: edge), espeak-ng's speaking speed at rate 1 (display characters and syllables per
second of speech) and its realtime factor (synthesis wall time / audio length), and the
front-end's own time per KB. Edge is not measured here: it needs the network. Usage:
    .venv/bin/python bench/speech.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.pinyin import homophone, load_lexicon, speech_tools  # noqa: E402
from service.adapters.segmenter import cjk_words  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.speech import front_end, parse_entries  # noqa: E402
from service.domain.text import split_phrases, syllables  # noqa: E402
from service.ports import TtsRequest  # noqa: E402
from service.voices import load_catalog  # noqa: E402


def main() -> None:
    tools = speech_tools()
    catalog = load_catalog(ROOT / "voices" / "catalog.json")
    engine = EspeakEngine(segment=cjk_words)
    front_end("预热", "zh", "pinyin", {}, tools)  # load jieba and pypinyin outside the timings
    homophone("hang2")  # and the homophone table (built once per process)
    totals = {"pinyin": 0, "text": 0}
    for path in sorted((ROOT / "examples").glob("*.md")):
        spec = parse_script(path.read_text(encoding="utf-8"))
        lexicon = {
            **load_lexicon(ROOT / "voices" / "lexicon" / f"{spec.language}.tsv"),
            **parse_entries(spec.pronunciations),
        }
        voice = catalog.default("espeak", spec.language).id
        rewrites = {"pinyin": 0, "text": 0}
        chars = syl = audio_s = wall = fe_s = 0.0
        size = 0
        for seg in spec.segments:
            t = time.perf_counter()
            spoken = {r: front_end(seg.text, spec.language, r, lexicon, tools) for r in rewrites}
            fe_s += time.perf_counter() - t
            size += len(seg.text.encode())
            for r, s in spoken.items():
                rewrites[r] += s.rewrites
            said = spoken["pinyin"]
            phrases = said.spans_to_spoken(split_phrases(seg.text, spec.line_chars, cjk_words))
            request = TtsRequest(
                said.text, voice, spec.language, 1.0, phrase_chars=spec.line_chars,
                phrases=tuple(phrases),
            )  # fmt: skip
            t = time.perf_counter()
            speech = engine.synthesize(request)
            wall += time.perf_counter() - t
            audio_s += speech.duration_ms / 1000
            chars += len(seg.text.replace(" ", ""))
            syl += syllables(seg.text, spec.language)
        for r in totals:
            totals[r] += rewrites[r]
        print(
            f"{path.name}: {len(spec.segments)} segments, voice {voice}\n"
            f"  spans rewritten: espeak (pinyin) {rewrites['pinyin']}, edge (text) "
            f"{rewrites['text']}\n"
            f"  espeak-ng at rate 1: {chars / audio_s:.2f} chars/s, {syl / audio_s:.2f} "
            f"syllables/s of speech; RTF {wall / audio_s:.3f} ({wall:.2f} s for {audio_s:.1f} s)\n"
            f"  front-end: {fe_s * 1000 / (size / 1024):.1f} ms/KB (both readers)"
        )
    print(f"all examples: spans rewritten espeak {totals['pinyin']}, edge {totals['text']}")


if __name__ == "__main__":
    main()

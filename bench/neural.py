"""Benchmark the neural offline voice zh-baker (fastspeech2 engine, ONNX on onnxruntime).

Prints: the pack build time (cached; first build as recorded in pack.json, or measured now
with --fresh-build into a throwaway cache), install time, model load time, resident memory,
speaking speed at rate 1 (display characters and syllables per second of speech) and the
realtime factor (synthesis wall time / audio length) on the Chinese examples, and the tone
check: the pitch gap in semitones between tone-1 and tone-3 syllables (autocorrelation pitch
tracker; ten syllables each said alone with tone 1 and with tone 3, median gap). Usage:
    .venv/bin/python bench/neural.py [--fresh-build]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.pitch import tone_gap  # noqa: E402
from service.adapters.text.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.adapters.text.segmenter import cjk_words  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.adapters.tts.fastspeech2 import FastSpeech2Engine  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.speech import front_end, parse_entries  # noqa: E402
from service.domain.text import split_phrases, syllables  # noqa: E402
from service.ports import TtsRequest  # noqa: E402
from service.voicepacks import zh_baker  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fresh-build", action="store_true", help="also time a build from scratch")
    args = ap.parse_args()
    cache = zh_baker.default_cache()
    quiet = lambda _msg: None  # noqa: E731

    t = time.perf_counter()
    built = zh_baker.build(cache, quiet)
    cached_s = time.perf_counter() - t
    meta = json.loads((built / "pack.json").read_text())
    print(f"build (cached, checksums verified): {cached_s:.2f} s   [{built}]")
    print(f"build (first, recorded in pack.json): {meta['build_seconds']} s of conversion")
    if args.fresh_build:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            zh_baker.build(Path(tmp), quiet)
            print(f"build (first, measured now, wall): {time.perf_counter() - t:.1f} s")
    for p in meta["verification"]["probes"]:
        print(f"  verified vs tflite: {p}")

    with tempfile.TemporaryDirectory() as data:
        t = time.perf_counter()
        pack = zh_baker.install(zh_baker.Paths(cache, Path(data)), True, quiet)
        print(f"install (copy + checksums): {time.perf_counter() - t:.2f} s")

        tools = speech_tools()
        front_end("预热", "zh", "pinyin", {}, tools)
        base = rss_mb()
        engine = FastSpeech2Engine(pack, english=EspeakEngine(segment=cjk_words))
        t = time.perf_counter()
        engine.load()
        print(f"load: {time.perf_counter() - t:.2f} s, +{rss_mb() - base:.0f} MB resident")

        chars = syl = audio_s = wall = 0.0
        for path in sorted((ROOT / "examples").glob("*.md")):
            spec = parse_script(path.read_text(encoding="utf-8"))
            if spec.language != "zh":
                continue
            lexicon = {
                **load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv"),
                **parse_entries(spec.pronunciations),
            }
            for seg in spec.segments:
                said = front_end(seg.text, "zh", "pinyin", lexicon, tools)
                phrases = said.spans_to_spoken(split_phrases(seg.text, spec.line_chars, cjk_words))
                request = TtsRequest(said.text, "zh-baker", "zh", 1.0, phrases=tuple(phrases))
                t = time.perf_counter()
                speech = engine.synthesize(request)
                wall += time.perf_counter() - t
                audio_s += speech.duration_ms / 1000
                chars += len(seg.text)
                syl += syllables(seg.text, "zh")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"examples (zh, rate 1): {audio_s:.1f} s of speech in {wall:.1f} s: RTF "
            f"{wall / audio_s:.3f}; {chars / audio_s:.2f} chars/s, {syl / audio_s:.2f} syllables/s"
        )
        print(f"memory: {rss_mb():.0f} MB resident now, peak {peak:.0f} MB (whole process)")
        print(f"tone check: tone-1 vs tone-3 pitch gap {tone_gap(engine):.2f} semitones")


if __name__ == "__main__":
    main()

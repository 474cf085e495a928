"""Benchmark a recorded voice in (issue 27 item 3): how well the reference-and-DTW alignment
finds the phrases of a take, and what it costs.

A "take" of each bundled example's segments is made by another voice: espeak-ng's female
variant (+f3: another pitch and timbre) at rate 1.3, and, for Chinese when the voice pack is
in the cache, the neural voice zh-baker (fastspeech2). Each take gets 400 ms of lead-in and
600 ms of tail and a -66 dBFS noise floor, as a recording would. The phrase onsets the
alignment finds (the espeak reference's phrase times carried into the take) are compared
with the take engine's own phrase onsets; the aim is within 150 ms for >= 90 % of phrases.
The same for one take of each whole script (its segments' takes end to end), split among
the segments as a ``take`` part is.
A 90 s take (the segments of all examples of one language read in one go) is timed in CPU
seconds (aim <= 2 s). Mismatch: each take aligned against another segment's text, for the
cost threshold. Usage:
    .venv/bin/python bench/takes.py [--no-neural]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.adapters.segmenter import cjk_words  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.audio import SILENCE_THRESHOLD  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.speech import Lexicon, SpokenText, Tools, front_end, parse_entries  # noqa: E402
from service.domain.subtitles import timed_phrases  # noqa: E402
from service.domain.text import split_phrases  # noqa: E402
from service.pipeline.segment import source_words  # noqa: E402
from service.pipeline.takes import (  # noqa: E402
    MISMATCH_COST,
    MISMATCH_TRIP_MS,
    carried,
    mismatch,
    script_reference,
    split,
)
from service.ports import Boundary, Speech, TtsEngine, TtsRequest  # noqa: E402

RATE = 24000
TOLERANCE_MS = 150


def said(engine: TtsEngine, text: str, lang: str, voice: str, rate: float, tools: Tools,
         lexicon: Lexicon, chars: int) -> tuple[Speech, SpokenText]:  # fmt: skip
    spoken = front_end(text, lang, getattr(engine, "reader", "text"), lexicon, tools)
    phrases = spoken.spans_to_spoken(split_phrases(text, chars, cjk_words))
    req = TtsRequest(spoken.text, voice, lang, rate, phrase_chars=chars, phrases=tuple(phrases))
    return engine.synthesize(req), spoken


def onsets(text: str, chars: int, speech: Speech, spoken: SpokenText) -> dict[int, int]:
    """Display phrase start (char) -> onset ms."""
    words = source_words(speech.boundaries, spoken, 1.0, speech.duration_ms)
    return {p.start: p.start_ms for p in timed_phrases(text, chars, words, cjk_words)}


def recorded(speech: Speech, rng: np.random.Generator) -> np.ndarray:
    from service.audio import resample

    x = resample(speech.audio, speech.rate, RATE)
    lead, tail = np.zeros(int(0.4 * RATE)), np.zeros(int(0.6 * RATE))
    x = np.concatenate([lead, x, tail]).astype(np.float32)
    return (x + rng.normal(0, 10 ** (-66 / 20), len(x))).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-neural", action="store_true")
    args = ap.parse_args()
    tools = speech_tools()
    espeak = EspeakEngine(segment=cjk_words)
    voices = {"zh": "cmn-latn-pinyin", "en": "en-us"}
    takers: list[tuple[str, TtsEngine, dict[str, str], float]] = [
        ("espeak +f3 at rate 1.3", espeak, {k: v + "+f3" for k, v in voices.items()}, 1.3)
    ]
    if not args.no_neural:
        neural = neural_engine(espeak)
        if neural is not None:
            takers.append(("neural zh-baker at rate 1", neural, {"zh": "zh-baker"}, 1.0))
    rng = np.random.default_rng(7)
    for name, taker, take_voices, take_rate in takers:
        hits = total = 0
        errors: list[float] = []
        costs: list[tuple[float, float]] = []
        wrong: list[tuple[float, float]] = []
        whole = [0, 0]  # phrase onsets within tolerance, phrases: one take of each script
        long_ref: dict[str, list[Speech]] = {}
        long_take: dict[str, list[np.ndarray]] = {}
        for path in sorted((ROOT / "examples").glob("*.md")):
            spec = parse_script(path.read_text(encoding="utf-8"))
            lang = spec.language
            if lang not in take_voices:
                continue
            lexicon = {
                **load_lexicon(ROOT / "voices" / "lexicon" / f"{lang}.tsv"),
                **parse_entries(spec.pronunciations),
            }
            chars = spec.line_chars
            segs = []
            for seg in spec.segments:
                ref, ref_sp = said(espeak, seg.text, lang, voices[lang], 1.0, tools, lexicon, chars)
                tk, tk_sp = said(taker, seg.text, lang, take_voices[lang], take_rate, tools,
                                 lexicon, chars)  # fmt: skip
                take = recorded(tk, rng)
                segs.append((seg.text, ref, ref_sp, tk, tk_sp, take))
                long_ref.setdefault(lang, []).append(ref)
                long_take.setdefault(lang, []).append(take)
            for i, (text, ref, ref_sp, tk, tk_sp, take) in enumerate(segs):
                got = carried(ref, take, RATE)
                costs.append((got.cost, got.round_trip_ms))
                truth = onsets(text, chars, tk, tk_sp)
                found = onsets(text, chars, got.speech, ref_sp)
                for start, ms in truth.items():
                    if start in found:
                        err = abs(found[start] - ms)
                        errors.append(err)
                        hits += err <= TOLERANCE_MS
                        total += 1
                other = segs[(i + 1) % len(segs)]
                if other[0] != text:
                    bad = carried(other[1], take, RATE)
                    wrong.append((bad.cost, bad.round_trip_ms))
            got_whole = whole_take(segs, chars)
            whole[0] += got_whole[0]
            whole[1] += got_whole[1]
        e = np.array(errors)
        print(f"take by {name}:")
        print(f"  phrase onsets within {TOLERANCE_MS} ms: {hits}/{total} = {hits / total:.1%}"
              f" (median error {np.median(e):.0f} ms, p90 {np.percentile(e, 90):.0f} ms,"
              f" max {e.max():.0f} ms)")  # fmt: skip
        print(f"  one take of each whole script, split by alignment: phrase onsets within"
              f" {TOLERANCE_MS} ms: {whole[0]}/{whole[1]} = {whole[0] / whole[1]:.1%}")  # fmt: skip
        for label, rows in (("right text", costs), ("wrong text", wrong)):
            c, t = np.array(rows).T
            flagged = sum(mismatch(1, a, b) is not None for a, b in rows)
            print(f"  {label}: cost {c.min():.2f}-{c.max():.2f} (median {np.median(c):.2f}),"
                  f" round trip {t.min():.0f}-{t.max():.0f} ms (median {np.median(t):.0f});"
                  f" take.mismatch for {flagged}/{len(rows)}")  # fmt: skip
        print(f"  (take.mismatch: cost over {MISMATCH_COST:g} or round trip over"
              f" {MISMATCH_TRIP_MS:g} ms)")  # fmt: skip
        for language in long_ref:
            timed_long(language, long_ref[language], long_take[language])


def whole_take(segs: list[Any], chars: int) -> tuple[int, int]:
    """The segments' takes as one recording (each keeps its lead-in and tail), split among the
    segments as narrate splits a ``take`` part: phrase onsets within tolerance, phrases."""
    reference, firsts = script_reference([s[1] for s in segs])
    take = np.concatenate([s[5] for s in segs])
    shares = split(carried(reference, take, RATE), reference, firsts)
    lead = int(np.argmax(np.abs(take) > SILENCE_THRESHOLD))  # what carried() trims
    hits = total = 0
    at = 0
    for (text, _ref, ref_sp, tk, tk_sp, own), share in zip(segs, shares, strict=True):
        starts_at = at + int(np.argmax(np.abs(own) > SILENCE_THRESHOLD)) - lead  # its speech
        at += len(own)
        span_ms = share["span"][0]
        bounds = [Boundary(*row) for row in share["boundaries"]]
        found = onsets(text, chars, Speech(tk.audio, tk.rate, bounds), ref_sp)
        for start, ms in onsets(text, chars, tk, tk_sp).items():
            if start in found:
                true_ms = starts_at * 1000 / RATE + ms
                hits += abs(span_ms + found[start] - true_ms) <= TOLERANCE_MS
                total += 1
    return hits, total


def timed_long(lang: str, refs: list[Speech], takes: list[np.ndarray]) -> None:
    """Everything of one language as one take of about 90 s (repeated to reach it)."""
    from service.audio import resample

    gap = np.zeros(int(0.5 * refs[0].rate), dtype=np.float32)
    ref_audio = np.concatenate([np.concatenate([r.audio, gap]) for r in refs])
    take = np.concatenate(takes)
    while len(take) < 90 * RATE:
        ref_audio, take = np.concatenate([ref_audio, ref_audio]), np.concatenate([take, take])
    take = take[: 90 * RATE]
    ref_audio = ref_audio[: int(len(ref_audio) * (90 * RATE) / len(take))]
    ref = Speech(ref_audio, refs[0].rate, [])
    t0 = time.process_time()
    got = carried(ref, take, RATE)
    cpu = time.process_time() - t0
    ref_s = len(ref_audio) / ref.rate
    print(f"  90 s take ({lang}, reference {ref_s:.0f} s): aligned in {cpu:.2f} s CPU"
          f" (cost {got.cost:.2f})")  # fmt: skip
    del resample


def neural_engine(english: EspeakEngine) -> TtsEngine | None:
    try:
        from service.adapters.tts.fastspeech2 import FastSpeech2Engine
        from service.voicepacks import zh_baker
    except ImportError:
        return None
    cache = zh_baker.default_cache()
    found = sorted(cache.glob("zh-baker-*"))
    if not found or not (found[-1] / "pack.json").is_file():
        print("(neural voice pack not in the cache: skipped)")
        return None
    return FastSpeech2Engine(found[-1], english=english)


if __name__ == "__main__":
    main()

"""Benchmark a recorded voice in (issue 27 item 3): how well the reference-and-DTW alignment
finds the phrases of a take, and what it costs.

A "take" of each bundled example's segments is made by another voice: espeak-ng's female
variant (+f3: another pitch and timbre) at rate 1.3, kokoro's catalog defaults (zf_xiaoyi,
af_heart) when its pack is in the cache, and, for Chinese when the voice pack is in the cache,
the neural voice zh-baker (fastspeech2). Each take gets 400 ms of lead-in and
600 ms of tail and a -66 dBFS noise floor, as a recording would. The phrase onsets the
alignment finds (the espeak reference's phrase times carried into the take) are compared
with the take engine's own phrase onsets; the aim is within 150 ms for >= 90 % of phrases.
The same for one take of each whole script (its segments' takes end to end), split among
the segments as a ``take`` part is.
A 90 s take (the segments of all examples of one language read in one go) is timed in CPU
seconds (aim <= 2 s). Mismatch: each take aligned against another segment's text, for the
cost threshold.

Script matching (issue 33, 文稿匹配; skipped with --no-recogniser or without the recogniser
pack): the same takes heard by the speech check's recogniser. Right text against wrong text
by the speech check's error rate (CER/WER of the take's transcript against the text); one
take of each whole script split by the recogniser's timed words matched to the script
(service/domain/script_match.py) beside the DTW split (segment and phrase onsets); and a
whole take that skips a line, and one that reads a line twice, split both ways and each
share speech-checked: which segments does each split flag? Usage:
    .venv/bin/python bench/takes.py [--no-neural] [--no-recogniser]
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

from service.adapters.text.pinyin import load_lexicon, speech_tools  # noqa: E402
from service.adapters.text.segmenter import cjk_words  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.audio import SILENCE_THRESHOLD  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.speech import Lexicon, SpokenText, Tools, front_end, parse_entries  # noqa: E402
from service.domain.subtitles import timed_phrases  # noqa: E402
from service.domain.text import split_phrases  # noqa: E402
from service.pipeline.listen import Listener  # noqa: E402
from service.pipeline.segment import source_words  # noqa: E402
from service.pipeline.takes import (  # noqa: E402
    MISMATCH_COST,
    MISMATCH_TRIP_MS,
    TakeShare,
    carried,
    matched_split,
    mismatch,
    script_reference,
    speech_span,
    split,
    trimmed,
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
    ap.add_argument("--no-recogniser", action="store_true")
    args = ap.parse_args()
    tools = speech_tools()
    listener = None if args.no_recogniser else make_listener(tools)
    espeak = EspeakEngine(segment=cjk_words)
    voices = {"zh": "cmn-latn-pinyin", "en": "en-us"}
    takers: list[tuple[str, TtsEngine, dict[str, str], float]] = [
        ("espeak +f3 at rate 1.3", espeak, {k: v + "+f3" for k, v in voices.items()}, 1.3)
    ]
    if not args.no_neural:
        if (kokoro := kokoro_engine()) is not None:
            takers.append(("kokoro at rate 1", kokoro, {"zh": "zf_xiaoyi", "en": "af_heart"}, 1.0))
        neural = neural_engine(espeak)
        if neural is not None:
            takers.append(("neural zh-baker at rate 1", neural, {"zh": "zh-baker"}, 1.0))
    rng = np.random.default_rng(7)
    for name, taker, take_voices, take_rate in takers:
        hits = total = 0
        errors: list[float] = []
        costs: list[tuple[float, float]] = []
        wrong: list[tuple[float, float]] = []
        heard: dict[str, list[list[float]]] = {}  # language -> [right rates, wrong rates]
        whole = [0, 0]  # phrase onsets within tolerance, phrases: one take of each script
        matching: dict[str, list[str]] = {}
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
                if listener is not None:
                    rates = heard.setdefault(lang, [[], []])
                    rates[0].append(rate_of(listener, text, lang, lexicon, take))
                    if other[0] != text:
                        rates[1].append(rate_of(listener, other[0], lang, lexicon, take))
            got_whole = whole_take(segs, chars)
            whole[0] += got_whole[0]
            whole[1] += got_whole[1]
            if listener is not None:
                matching[path.stem] = script_matching(listener, spec, lexicon, segs, chars)
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
        for language, (right, wrong_rates) in heard.items():
            r, w = np.array(right), np.array(wrong_rates)
            apart = "separated" if r.max() < w.min() else "OVERLAP"
            print(f"  recogniser, {language}: right text error rate {r.min():.2f}-{r.max():.2f}"
                  f" (median {np.median(r):.2f}), wrong text {w.min():.2f}-{w.max():.2f}"
                  f" (median {np.median(w):.2f}): {apart}")  # fmt: skip
        for stem, lines in matching.items():
            for line in lines:
                print(f"  {stem}: {line}")


def whole_take(
    segs: list[Any], chars: int, shares: list[TakeShare] | None = None
) -> tuple[int, int]:
    """The segments' takes as one recording (each keeps its lead-in and tail), split among the
    segments as narrate splits a ``take`` part (``shares``: a split made otherwise, in the
    trimmed take's time): phrase onsets within tolerance, phrases."""
    take = np.concatenate([s[5] for s in segs])
    if shares is None:
        reference, firsts = script_reference([s[1] for s in segs])
        shares = split(carried(reference, take, RATE), reference, firsts)
    lead = speech_span(take)[0]  # what carried() trims
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


class Heard:
    """The recogniser with each transcription kept (a take is compared with two texts)."""

    def __init__(self, recogniser: Any) -> None:
        self.inner, self.name, self.max_seconds = (
            recogniser,
            recogniser.name,
            recogniser.max_seconds,
        )
        self.kept: dict[tuple[int, str, bool], Any] = {}
        self.cpu = 0.0

    def transcribe(self, audio: np.ndarray, rate: int, language: str, timed: bool = False) -> Any:
        key = (hash(audio.tobytes()), language, timed)
        if key not in self.kept:
            self.kept[key] = self.inner.transcribe(audio, rate, language, timed)
        return self.kept[key]


def make_listener(tools: Tools) -> Listener | None:
    from service.adapters.asr import WhisperRecogniser, fold_simplified
    from service.voicepacks import whisper_base

    try:
        whisper_base.located()
    except Exception as e:
        print(f"(recogniser not installed: script matching skipped: {e})")
        return None
    return Listener(Heard(WhisperRecogniser()), lambda: tools, lambda s: {}, fold_simplified)


def rate_of(listener: Listener, text: str, lang: str, lexicon: Lexicon, take: np.ndarray) -> float:
    """The speech check's error rate of ``take`` read as ``text`` (the take trimmed, as narrate
    checks a take's fitted speech)."""
    check = listener.judge(text, lang, lexicon, trimmed(take), RATE)
    return check.error_rate if check.error_rate is not None else float("nan")


def script_matching(
    listener: Listener, spec: Any, lexicon: Lexicon, segs: list[Any], chars: int
) -> list[str]:
    """One take of the whole script split by script matching beside the DTW split; then takes
    that skip a line and that read a line twice, split both ways and each share checked."""
    from service.domain.spec import RenderOptions
    from service.pipeline.results import JobPlan

    plan = JobPlan.model_construct(spec=spec, options=RenderOptions(), voices=[])  # type: ignore[call-arg]  # split_take reads the spec and options only
    listener.lexicon = lambda s: lexicon
    refs = [s[1] for s in segs]
    out = []
    take = np.concatenate([s[5] for s in segs])
    t0 = time.process_time()
    shares = listener.split_take(plan, trimmed(take), RATE)
    cpu = time.process_time() - t0
    if shares is None:
        return ["the recogniser understood too little of the take: split by DTW"]
    by_match = matched_split(shares, trimmed(take), RATE, refs)
    hm, tm = whole_take(segs, chars, by_match)
    hd, td = whole_take(segs, chars)
    long = len(take) / RATE
    out.append(f"whole take split by script matching: phrase onsets within {TOLERANCE_MS} ms"
               f" {hm}/{tm}, by DTW {hd}/{td} ({cpu:.1f} s CPU, {long:.0f} s take)")  # fmt: skip
    n = len(segs)
    if n >= 3:
        skip = [s[5] for k, s in enumerate(segs) if k != 1]
        twice = [s[5] for s in segs[:2]] + [segs[1][5]] + [s[5] for s in segs[2:]]
        for label, parts in (("line 2 skipped", skip), ("line 2 read twice", twice)):
            out.append(f"{label}: " + faulty(listener, plan, spec, lexicon, refs, parts))
    return out


def faulty(listener: Listener, plan: Any, spec: Any, lexicon: Lexicon, refs: list[Speech],
           parts: list[np.ndarray]) -> str:  # fmt: skip
    """Which segments the speech check flags on each split of a faulty whole take."""
    take = trimmed(np.concatenate(parts))
    said = []
    shares = listener.split_take(plan, take, RATE)
    splits = {"DTW": split(*_dtw(refs, take))}
    if shares is not None:
        splits["script matching"] = matched_split(shares, take, RATE, refs)
    for name, rows in splits.items():
        flagged = []
        for k, row in enumerate(rows):
            a, b = (int(t * RATE / 1000) for t in row["span"])
            seg = spec.segments[k]
            audio = levelled_share(take, a, b)
            check = listener.judge(seg.text, spec.language, lexicon, audio, RATE) if b > a else None
            if check is None or check.flagged:
                rate = "nothing" if check is None else f"{check.error_rate:.2f}"
                flagged.append(f"{k + 1} ({rate})")
        said.append(f"{name} flags {', '.join(flagged) or 'none'}")
    return "; ".join(said)


def _dtw(refs: list[Speech], take: np.ndarray) -> tuple[Any, Speech, list[int]]:
    reference, firsts = script_reference(refs)
    return carried(reference, take, RATE), reference, firsts


def levelled_share(take: np.ndarray, a: int, b: int) -> np.ndarray:
    return np.asarray(take[a:b], dtype=np.float32)


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


def kokoro_engine() -> TtsEngine | None:
    """kokoro from its pack in the cache (checksums verified; built there if missing)."""
    from service.adapters.tts.kokoro import KokoroEngine
    from service.voicepacks import kokoro
    from service.voicepacks.zh_baker import default_cache

    try:
        return KokoroEngine(kokoro.build(default_cache(), lambda _: None))
    except Exception as e:  # no pack and no registry: the other takers still run
        print(f"(kokoro pack unavailable: skipped: {e})")
        return None


if __name__ == "__main__":
    main()

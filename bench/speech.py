"""Benchmark the speech front-end and espeak-ng on the bundled examples (examples/*.md).

Prints, per example: how many spans the front-end rewrote for each reader (pinyin: espeak-ng;
text: edge), espeak-ng's speaking speed at rate 1 (display characters and syllables per
second of speech) and its realtime factor (synthesis wall time / audio length), and the
front-end's own time per KB, and how many raw symbols (digits, slashes, signs) the offline
reader leaves for espeak-ng (the aim: 0). Edge is not measured here: it needs the network.

Then the reading tables (tests/data/en_readings.tsv, zh_readings.tsv): how many rows each
engine's reader says as the table does (espeak-ng and the neural voice take the "pinyin"
reader; edge takes the script with the lexicon, for Azure's own normaliser), and what
nemo-text-processing's English normaliser says for each English row, where it is importable
(here, or in the interpreter given by --nemo-python: it needs pynini). Usage:
    .venv/bin/python bench/speech.py [--nemo-python /path/to/python] [--tables-only]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.files.catalog import load_catalog  # noqa: E402
from service.adapters.text.pinyin import homophone, load_lexicon, speech_tools  # noqa: E402
from service.adapters.text.segmenter import cjk_words  # noqa: E402
from service.adapters.tts.espeak import EspeakEngine  # noqa: E402
from service.domain.script import parse_script  # noqa: E402
from service.domain.speech import Tools, front_end, parse_entries  # noqa: E402
from service.domain.text import split_phrases, syllables  # noqa: E402
from service.ports import TtsRequest  # noqa: E402

DATA = ROOT / "tests" / "data"
RAW = re.compile(r"[\d/\\$€£¥%~≈<>≤≥=+±×÷^*#@&|_()\[\]{}→]")
NEMO = """
import json, sys
from nemo_text_processing.text_normalization.normalize import Normalizer
n = Normalizer(input_case="cased", lang="en", cache_dir=sys.argv[1] if len(sys.argv) > 1 else None)
rows = json.load(sys.stdin)
print(json.dumps([n.normalize(t, punct_post_process=True) for t in rows]))
"""


def table(name: str) -> list[tuple[str, str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [tuple(x.split("\t")) for x in lines if x.strip() and not x.startswith("#")]  # type: ignore[misc]


def _flat(text: str) -> str:
    """For comparing readings: case, hyphens, punctuation and letter spacing aside (nemo
    leaves ``GPU`` for the voice to spell; this reader writes ``G P U``)."""
    words = re.sub(r"[-,.;:!?'’]", " ", re.sub(r"\beh\b", "a", text.lower())).split()
    return re.sub(r"(?<=\b\w) (?=\w\b)", "", " ".join(words))


def nemo_readings(texts: list[str], python: str | None) -> list[str] | None:
    """nemo-text-processing's English readings, in this process or in ``python``; None when
    it is not installed (pynini, its finite-state toolkit, is a 165 MB wheel)."""
    if python is None:
        try:
            import nemo_text_processing  # noqa: F401
        except ImportError:
            return None
        python = sys.executable
    cache = str(Path.home() / ".cache" / "narrate-nemo")
    proc = subprocess.run(
        [python, "-c", NEMO, cache], input=json.dumps(texts), capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(f"nemo-text-processing failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


def tables(nemo_python: str | None) -> None:
    hanzi = Tools(cjk_words, lambda w: list(w), lambda s: None)

    def said(text: str, language: str, reader: str) -> str:
        out = " ".join(front_end(text, language, reader, {}, hanzi).text.split())
        return re.sub(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])", "", out)

    for name, language in (("en_readings.tsv", "en"), ("zh_readings.tsv", "zh")):
        rows = table(name)
        for reader, engines in (("pinyin", "espeak-ng, fastspeech2"), ("text", "edge")):
            right = sum(said(t, language, reader) == want for t, want in rows)
            print(f"{name}: {engines} ({reader} reader) {right}/{len(rows)} rows as the table")
    rows = table("en_readings.tsv")
    got = nemo_readings([t for t, _ in rows], nemo_python)
    if got is None:
        print("nemo-text-processing is not importable: no comparison (--nemo-python PY)")
        return
    same = [g for g, (_, want) in zip(got, rows, strict=True) if _flat(g) == _flat(want)]
    print(f"nemo-text-processing (en, cased): {len(same)}/{len(rows)} rows as the table")
    print(f"  {'text':34s} {'ours':44s} nemo")
    for (text, want), theirs in zip(rows, got, strict=True):
        if _flat(theirs) != _flat(want):
            print(f"  {text[:34]:34s} {want[:44]:44s} {theirs}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nemo-python", help="a Python with nemo-text-processing installed")
    ap.add_argument("--tables-only", action="store_true", help="skip the espeak-ng timings")
    args = ap.parse_args()
    if not args.tables_only:
        examples()
    tables(args.nemo_python)


def examples() -> None:
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
        raw = 0
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
            if spec.language == "en":
                raw += len(RAW.findall(said.text))
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
            + (f"; raw symbols left for espeak-ng: {raw}" if spec.language == "en" else "")
        )
    print(f"all examples: spans rewritten espeak {totals['pinyin']}, edge {totals['text']}")


if __name__ == "__main__":
    main()

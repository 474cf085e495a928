"""POST /v1/audio/speech through the official openai client on a real stack (Redis, one
worker, uvicorn, kokoro's pack in its data dir): the time to the first byte of a
one-sentence request, read with ``with_streaming_response``, and to its last byte.

Per engine (espeak, kokoro) and language: a cold first request (the engine loads), then
``--runs`` warm requests of new sentences (the TTS cache cannot answer) and of one sentence
again (the cache answers); beside them a new sentence spoken in this process by the same
desk (front-end and engine; no HTTP, no encode, no cache), so what HTTP and the encode add
is the difference on the same host at the same load. The aim: the first byte within 1 s warm.

Usage: .venv/bin/python bench/speech_api.py [--runs 5] [--format mp3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import openai

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import start_stack  # noqa: E402
from service import wiring  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.openai_speech import read_speech  # noqa: E402
from service.jobs.speech import SpeechDesk  # noqa: E402
from service.voicepacks import kokoro  # noqa: E402

SENTENCES = {
    "en": "Sentence number {n} tells the listener what the figure shows.",
    "zh": "第{n}句话告诉听众这张图说明了什么。",
}
VOICES = {("kokoro", "en"): "af_heart", ("kokoro", "zh"): "zf_xiaoxiao",
          ("espeak", "en"): "en-us", ("espeak", "zh"): "cmn-latn-pinyin"}  # fmt: skip


def timed(
    client: openai.OpenAI, model: str, voice: str, text: str, fmt: str
) -> tuple[float, float]:
    """Seconds to the first audio byte and to the last."""
    t0 = time.perf_counter()
    with client.audio.speech.with_streaming_response.create(
        model=model,
        voice=voice,
        input=text,
        response_format=fmt,  # type: ignore[arg-type]
    ) as response:
        first = 0.0
        for chunk in response.iter_bytes():
            if chunk and not first:
                first = time.perf_counter() - t0
    return first, time.perf_counter() - t0


def engine_seconds(data: Path, model: str, voice: str, language: str, runs: int) -> list[float]:
    """New sentences spoken in this process by the same desk the route uses (front-end,
    casting, engine; no HTTP, no encode, no TTS cache), warmed by one first."""
    desk = SpeechDesk(wiring.pipeline(Settings(data_dir=data, tts_cache=False)), None, 1, 10)
    out = []
    for n in range(runs + 1):
        body = {"model": model, "voice": voice, "input": SENTENCES[language].format(n=1000 + n)}
        ask = read_speech(body, 4096)
        t0 = time.perf_counter()
        list(desk.speak(ask, desk.cast(ask)))
        out.append(time.perf_counter() - t0)
    return out[1:]


def row(name: str, figures: list[tuple[float, float]]) -> None:
    firsts, lasts = [f for f, _ in figures], [last for _, last in figures]
    print(
        f"  {name:<22} first byte median {statistics.median(firsts):6.3f} s "
        f"(max {max(firsts):.3f})   last byte median {statistics.median(lasts):6.3f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--format", default="mp3")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        kokoro.install(Path(tmp), log=lambda line: None)
        stack = start_stack(Path(tmp), workers=1)
        try:
            client = openai.OpenAI(
                base_url=f"{stack.url}/v1", api_key=stack.keys["alpha"], max_retries=0
            )
            n = 0
            for model in ("espeak", "kokoro"):
                for language in ("en", "zh"):
                    voice = VOICES[(model, language)]
                    print(f"{model} {voice} ({args.format}):")
                    cold = timed(client, model, voice, SENTENCES[language].format(n=n), args.format)
                    row("cold (engine loads)", [cold])
                    fresh = []
                    for _ in range(args.runs):
                        n += 1
                        text = SENTENCES[language].format(n=n)
                        fresh.append(timed(client, model, voice, text, args.format))
                    row("warm, new sentence", fresh)
                    again = SENTENCES[language].format(n=n)
                    hits = [
                        timed(client, model, voice, again, args.format) for _ in range(args.runs)
                    ]
                    row("warm, cached sentence", hits)
                    bare = engine_seconds(Path(tmp), model, voice, language, args.runs)
                    median = statistics.median(bare)
                    print(f"  {'in-process, new':<22} synthesis median {median:6.3f} s")
        finally:
            stack.stop()


if __name__ == "__main__":
    main()

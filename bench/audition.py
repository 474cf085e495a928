"""Audition latency: ``GET /v1/voices/{id}/sample`` through the real API (uvicorn, a fresh
data directory, so an empty TTS cache), as the studio's audition button asks it.

For each voice: the first request (the engine's first use in the API process: a model or
dictionary load, and a TTS cache miss), a new sentence (engine warm, cache miss), the same
request again (TTS cache hit; median of 5) and with its ETag (the browser's revalidation, a
304; median of 5), then a new rate and pitch (cache miss). Voices: espeak (zh, en), the
offline neural zh-baker (its pack installed into the throwaway data directory from the
shared pack cache, as bench/neural.py does; a 422 line when the pack is not built), and an
edge voice on the local protocol server (devtools/edge_server.py: local synthesis, not the
real service's network time).
Usage: .venv/bin/python bench/audition.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.edge_server import EdgeServer  # noqa: E402
from devtools.stack import start_stack  # noqa: E402
from service.voicepacks import zh_baker  # noqa: E402

VOICES = [
    ("cmn-latn-pinyin", "espeak zh"),
    ("en-us", "espeak en"),
    ("zh-baker", "neural zh (fastspeech2)"),
    ("zh-CN-XiaoxiaoNeural", "edge zh (local server)"),
]
NEW_TEXT = {"zh": "第二句话用来测未命中缓存的时间。", "en": "A second sentence, not in the cache."}


def timed(client: httpx.Client, path: str, **kw: Any) -> tuple[float, httpx.Response]:
    t = time.perf_counter()
    r = client.get(path, **kw)
    return time.perf_counter() - t, r


def bench_voice(client: httpx.Client, voice: str, label: str) -> None:
    path = f"/v1/voices/{voice}/sample"
    first, r = timed(client, path)
    if r.status_code != 200:
        print(f"{label:26} {voice}: HTTP {r.status_code} {r.text[:80]}")
        return
    spoke = f"{r.headers['x-narrate-engine']}/{r.headers['x-narrate-voice']}"
    lang = "en" if voice.startswith("en") else "zh"
    miss, _ = timed(client, path, params={"text": NEW_TEXT[lang]})
    hits = [timed(client, path)[0] for _ in range(5)]
    _, again = timed(client, path)
    assert again.headers["x-narrate-cached"] == "1", again.headers
    etag = again.headers["etag"]
    revalidated = [timed(client, path, headers={"If-None-Match": etag}) for _ in range(5)]
    assert all(r.status_code == 304 for _, r in revalidated)
    tuned, _ = timed(client, path, params={"rate": "+20%", "pitch": "-5Hz"})
    rate = int.from_bytes(r.content[24:28], "little")  # the WAV header's; 16-bit mono
    seconds = (len(r.content) - 44) / 2 / rate
    print(
        f"{label:26} {first * 1000:7.0f} {miss * 1000:7.0f} "
        f"{statistics.median(hits) * 1000:7.1f} "
        f"{statistics.median(t for t, _ in revalidated) * 1000:7.1f} {tuned * 1000:7.0f}"
        f"   {seconds:4.1f} s of audio, spoken by {spoke}"
    )


def main() -> None:
    edge = EdgeServer(delay=0).start()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "stack"
        cache = zh_baker.default_cache()
        if zh_baker.is_complete(cache / f"{zh_baker.VOICE}-{zh_baker.build_key()}"):
            zh_baker.install(zh_baker.Paths(cache, data), True, lambda _: None)  # no build
        stack = start_stack(data, workers=0, edge_wss_url=edge.url)
        try:
            with stack.client("alpha") as client:
                print("GET /v1/voices/{id}/sample, milliseconds at the client (one API process)")
                print(f"{'voice':26} {'first':>7} {'miss':>7} {'hit':>7} {'304':>7} {'rate+p':>7}")
                for voice, label in VOICES:
                    bench_voice(client, voice, label)
        finally:
            stack.stop()
            edge.stop()


if __name__ == "__main__":
    main()

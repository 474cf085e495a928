"""A local websocket server that speaks the edge-tts protocol, with fault injection.

It accepts ``speech.config`` and the SSML message, and answers ``turn.start``, one
``audio.metadata`` WordBoundary per phrase (offsets in 100-ns ticks), binary MP3 frames of
real espeak-ng speech at the SSML's rate (24 kHz, 48 kbit/s CBR, like edge), and ``turn.end``.
Like the real service, the audio has leading silence and ~1.2 s of trailing silence.

Point narrate at it with ``NARRATE_EDGE_WSS_URL`` (or ``EdgeConfig.wss_url``) set to
``server.url``. For a local demo:
    .venv/bin/python -m devtools.edge_server --port 8765
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http
import json
import re
import subprocess
import threading
import time
import uuid
from collections import deque
from xml.sax.saxutils import unescape

import numpy as np
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from service.adapters.text.segmenter import tagged_words, warm
from service.adapters.tts.espeak import EspeakEngine
from service.audio import silence, to_pcm16
from service.ports import Boundary, TtsRequest

LEAD_MS, TRAIL_MS = 120, 1200


def _voice_for(name: str) -> str:
    # edge-tts sends "Microsoft Server Speech Text to Speech Voice (zh-CN, YunxiNeural)".
    return "cmn-latn-pinyin" if "zh-" in name else "en-us"


def _mp3(pcm: bytes, rate: int) -> bytes:
    return subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "s16le", "-ar", str(rate), "-ac", "1", "-i", "-",
         "-ar", "24000", "-ac", "1", "-c:a", "libmp3lame", "-b:a", "48k", "-f", "mp3", "-"],
        input=pcm, capture_output=True, check=True,
    ).stdout  # fmt: skip


def _text_message(path: str, body: str, request_id: str) -> str:
    return (
        f"X-RequestId:{request_id}\r\nContent-Type:application/json; charset=utf-8\r\n"
        f"Path:{path}\r\n\r\n{body}"
    )


def _audio_message(data: bytes, request_id: str) -> bytes:
    # The stream ends with an audio message that has no Content-Type and no data.
    ctype = "Content-Type:audio/mpeg\r\n" if data else ""
    header = f"X-RequestId:{request_id}\r\n{ctype}Path:audio\r\n".encode()
    return len(header).to_bytes(2, "big") + header + data


class EdgeServer:
    """Runs in a background thread; ``faults`` is consumed one per connection, ``always``
    applies to every connection while set. A fault is one of: "403", "429", "503" (refused
    handshake), "close" (no audio), "delay" (silent past the receive timeout), "truncate".

    "delay" is silent until the client hangs up (``delay`` None), so the client's receive
    timeout fires whatever its length and however slow the machine: a fixed silence raced it.
    Meanwhile the answer is made, and every answer is kept by (text, voice, rate): a retry
    is answered at once, not after another synthesis a loaded machine may take seconds for.
    ``delay`` in seconds: silent that long, then the answer (a slow endpoint, not a dead one)."""

    def __init__(self, port: int = 0, delay: float | None = None) -> None:
        self.port = port
        self.delay = delay
        self.faults: deque[str | None] = deque()
        self.always: str | None = None
        self.requests = 0
        self.served = 0
        self.concurrent = 0
        self.max_concurrent = 0
        self.hold = 0.0  # seconds to hold each successful connection open (for the semaphore test)
        self.engine = EspeakEngine(segment=tagged_words)  # phrases as the service cuts them
        warm()  # the dictionary loads now, not inside the first (timed) request
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._pending: dict[int, str | None] = {}
        self._answers: dict[tuple[str, str, int], tuple[list[Boundary], bytes]] = {}

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/consumer/speech/synthesize/readaloud/edge/v1?TrustedClientToken=test"

    def reset(self) -> None:
        with self._lock:
            self.faults.clear()
            self.always = None
            self.requests = self.served = self.max_concurrent = 0
            self.hold = 0.0

    # -- protocol ---------------------------------------------------------------------------
    def _next_fault(self) -> str | None:
        with self._lock:
            self.requests += 1
            return self.always or (self.faults.popleft() if self.faults else None)

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        fault = self._next_fault()
        if fault in ("403", "429", "503"):
            return connection.respond(http.HTTPStatus(int(fault)), f"fault {fault}\n")
        self._pending[id(connection)] = fault
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        fault = self._pending.pop(id(ws), None)
        with self._lock:
            self.concurrent += 1
            self.max_concurrent = max(self.max_concurrent, self.concurrent)
        try:
            await self._answer(ws, fault)
        except ConnectionClosed:
            pass  # the client gave up (its receive timeout): that is the fault under test
        finally:
            with self._lock:
                self.concurrent -= 1

    async def _answer(self, ws: ServerConnection, fault: str | None) -> None:
        config = await ws.recv()
        assert isinstance(config, str) and "Path:speech.config" in config
        ssml = await ws.recv()
        assert isinstance(ssml, str) and "Path:ssml" in ssml
        voice = re.search(r"<voice name='([^']+)'>", ssml)
        rate = re.search(r"rate='([+-]\d+)%'", ssml)
        body = re.search(r"<prosody[^>]*>(.*)</prosody>", ssml, re.S)
        text = unescape(body.group(1)) if body else ""
        request_id = uuid.uuid4().hex
        if fault == "close":
            await ws.send(_text_message("turn.start", "{}", request_id))
            await ws.close()
            return
        pct = int(rate.group(1)) if rate else 0
        boundaries, mp3 = await asyncio.to_thread(
            self._answer_for, text, voice.group(1) if voice else "en", pct
        )
        if fault == "delay":
            if self.delay is None:
                await ws.wait_closed()  # until the client's receive timeout gives up
                return
            await asyncio.sleep(self.delay)
        await ws.send(_text_message("turn.start", '{"context":{"serviceTag":"test"}}', request_id))
        for b in boundaries:
            word = text[b.start : b.end].strip()
            meta = {
                "Metadata": [
                    {
                        "Type": "WordBoundary",
                        "Data": {
                            "Offset": (LEAD_MS + b.start_ms) * 10_000,
                            "Duration": (b.end_ms - b.start_ms) * 10_000,
                            "text": {
                                "Text": word,
                                "Length": len(word),
                                "BoundaryType": "WordBoundary",
                            },
                        },
                    }
                ]
            }
            await ws.send(
                _text_message("audio.metadata", json.dumps(meta, ensure_ascii=False), request_id)
            )
        if fault == "truncate":
            mp3 = mp3[: len(mp3) // 3]
        for i in range(0, len(mp3), 4096):
            await ws.send(_audio_message(mp3[i : i + 4096], request_id))
        if self.hold:
            await asyncio.sleep(self.hold)
        await ws.send(_audio_message(b"", request_id))
        await ws.send(_text_message("turn.end", "{}", request_id))
        with self._lock:
            self.served += 1

    def _answer_for(self, text: str, voice: str, pct: int) -> tuple[list[Boundary], bytes]:
        """The word boundaries and the MP3 of ``text`` in ``voice`` at ``pct`` % rate, made once."""
        key = (text, voice, pct)
        if key not in self._answers:
            speech = self.engine.synthesize(
                TtsRequest(text, _voice_for(voice), "", 1 + pct / 100, phrase_chars=16)
            )
            sr = speech.rate
            lead, trail = silence(sr * LEAD_MS // 1000), silence(sr * TRAIL_MS // 1000)
            pcm = to_pcm16(np.concatenate([lead, speech.audio, trail])).tobytes()
            self._answers[key] = (list(speech.boundaries), _mp3(pcm, sr))
        return self._answers[key]

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> EdgeServer:
        ready = threading.Event()

        async def main() -> None:
            self._server = await serve(
                self._handler,
                "127.0.0.1",
                self.port,
                process_request=self._process_request,
                max_size=None,
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            await self._server.serve_forever()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            with contextlib.suppress(asyncio.CancelledError):
                self._loop.run_until_complete(main())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop and self._server:
            self._loop.call_soon_threadsafe(self._server.close)
        if self._thread:
            self._thread.join(5)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--port", type=int, default=8765)
    args = p.parse_args()
    server = EdgeServer(args.port).start()
    print(f"edge test server at {server.url}")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

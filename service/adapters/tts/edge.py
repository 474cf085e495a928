"""edge-tts (Microsoft's neural voices) behind the TtsEngine port.

Every attempt is a new Communicate with connect/receive timeouts; transient failures
(NoAudioReceived, WebSocketError, 403/429/503, timeouts, truncated audio) are retried with
jittered exponential backoff, inside a fleet-wide connection cap and circuit breaker."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import socket
import time
import types
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib.metadata import version as package_version
from typing import TYPE_CHECKING, Any

import numpy as np

from service.adapters.process import run
from service.adapters.tts.guard import Guard
from service.audio import speech_bounds
from service.domain.errors import EngineError, MediaError
from service.domain.units import samples_to_ms, ticks_to_ms
from service.ports import Boundary, Speech, TtsRequest

if TYPE_CHECKING:
    import edge_tts

# aiohttp and edge-tts (~0.4 s of CPU to import) load on the first edge synthesis, so that a
# process that speaks with another engine never pays for them.

RETRY_STATUS = {403, 429, 503}
SAMPLE_RATE = 24000

log = logging.getLogger("narrate.tts.edge")


@dataclass(frozen=True, slots=True)
class EdgeConfig:
    wss_url: str | None = None
    connect_timeout: float = 10.0
    receive_timeout: float = 60.0
    attempts: int = 3
    backoff: float = 0.5  # first retry waits about this long, then doubles (with jitter)
    slot_wait: float = 60.0
    ffmpeg: str = "ffmpeg"
    decode_timeout: float = 60.0


def rate_string(rate: float) -> str:
    return f"{round((rate - 1) * 100):+d}%"


def decode_args(ffmpeg: str) -> list[str]:
    """MP3 on stdin -> mono 16-bit PCM at 24 kHz on stdout."""
    return [
        ffmpeg, "-v", "error", "-f", "mp3", "-i", "-",
        "-f", "s16le", "-ac", "1", "-ar", str(SAMPLE_RATE), "-",
    ]  # fmt: skip


def decode_mp3(data: bytes, ffmpeg: str = "ffmpeg", timeout: float = 60.0) -> np.ndarray:
    """MP3 -> mono float32 at 24 kHz (ffmpeg honours the encoder delay, so times line up)."""
    try:
        out = run(decode_args(ffmpeg), timeout, stdin=data).stdout
    except MediaError as exc:
        raise EngineError("edge", f"undecodable audio: {exc.stderr_tail[-200:]}", True) from None
    return np.frombuffer(out, "<i2").astype(np.float32) / 32768.0


@lru_cache(maxsize=8)
def communicate_for(wss_url: str | None) -> type[edge_tts.Communicate]:
    """A Communicate that connects to ``wss_url`` (None: edge-tts's own endpoint).

    edge-tts 7.3 takes no endpoint: its private ``__stream`` reads the module global
    ``WSS_URL`` as it connects. Assigning that global would redirect every user of edge-tts in
    the process; instead the subclass runs upstream's own ``__stream`` (its code object,
    unchanged) with globals in which ``WSS_URL`` is this endpoint. Checked at construction,
    so an edge-tts that no longer works this way fails loudly rather than calling Microsoft."""
    import edge_tts

    if wss_url is None:
        return edge_tts.Communicate
    upstream: Any = getattr(edge_tts.Communicate, "_Communicate__stream", None)
    if not isinstance(upstream, types.FunctionType) or "WSS_URL" not in upstream.__code__.co_names:
        raise EngineError("edge", f"edge-tts {edge_tts.__version__} cannot take an endpoint")
    scoped = types.FunctionType(
        upstream.__code__,
        {**upstream.__globals__, "WSS_URL": wss_url},
        upstream.__name__,
        upstream.__defaults__,
        upstream.__closure__,
    )
    return type("EndpointCommunicate", (edge_tts.Communicate,), {"_Communicate__stream": scoped})


def unreachable_why(exc: BaseException) -> str:
    """Why a connection failed, in words: the system's reason ("connection refused", "name
    or service not known"), never aiohttp's message, which carries the SSL context's repr
    (``ssl:<ssl.SSLContext object at 0x...>``)."""
    cause = getattr(exc, "os_error", None) or exc  # aiohttp's connector errors wrap it
    errno = getattr(cause, "errno", None)
    if isinstance(cause, socket.gaierror) or not isinstance(errno, int) or errno <= 0:
        why = getattr(cause, "strerror", None) or str(cause)
    else:
        why = os.strerror(errno)  # asyncio says "Connect call failed (addr)" for a refusal
    if not why or " object at 0x" in why:
        why = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(cause).__name__).removesuffix(" Error")
    return why[:1].lower() + why[1:200]


def map_words(text: str, words: list[tuple[str, int, int]]) -> list[Boundary]:
    """Word boundaries (text, start ms, end ms) -> character spans of ``text``, in order."""
    out: list[Boundary] = []
    cursor = 0
    for word, start, end in words:
        word = word.strip()
        at = text.find(word, cursor) if word else -1
        if at < 0:
            continue  # the service normalised this word: its neighbours time the phrase
        out.append(Boundary(at, at + len(word), start, end))
        cursor = at + len(word)
    return out


class EdgeEngine:
    name = "edge"
    min_rate = 0.5
    max_rate = 2.0
    version = package_version("edge-tts")

    def __init__(self, config: EdgeConfig, guard: Guard) -> None:
        self.config = config
        self.guard = guard

    @cached_property
    def communicate(self) -> type[edge_tts.Communicate]:
        return communicate_for(self.config.wss_url)

    async def _once(self, request: TtsRequest) -> tuple[bytes, list[tuple[str, int, int]]]:
        comm = self.communicate(
            request.text,
            request.voice,
            rate=rate_string(request.rate),
            pitch=request.pitch,
            volume=request.volume,
            boundary="WordBoundary",  # needed since 7.2 for word timings
            connect_timeout=int(self.config.connect_timeout),
            receive_timeout=int(self.config.receive_timeout),
        )
        audio = bytearray()
        words: list[tuple[str, int, int]] = []
        stream = comm.stream()
        while True:
            # edge-tts's receive_timeout (aiohttp sock_read) does not bound websocket reads:
            # bound every message ourselves.
            try:
                chunk = await asyncio.wait_for(anext(stream), self.config.receive_timeout)
            except StopAsyncIteration:
                break
            if chunk["type"] == "audio":
                audio += chunk["data"]
            elif chunk["type"] == "WordBoundary":
                start = ticks_to_ms(int(chunk["offset"]))
                words.append((chunk["text"], start, start + ticks_to_ms(int(chunk["duration"]))))
        return bytes(audio), words

    def _attempt(self, request: TtsRequest) -> Speech:
        import aiohttp
        from edge_tts.exceptions import NoAudioReceived, WebSocketError

        if not self.guard.allow():
            raise EngineError(
                self.name, "circuit breaker open: edge is failing fleet-wide", retryable=False
            )
        try:
            with self.guard.slot(self.config.slot_wait):
                mp3, words = asyncio.run(
                    asyncio.wait_for(
                        self._once(request),
                        self.config.connect_timeout + self.config.receive_timeout,
                    )
                )
            speech = self._decode(request.text, mp3, words)
        except EngineError as exc:
            if exc.retryable:
                self.guard.failure()
            raise
        except (NoAudioReceived, WebSocketError) as exc:
            self.guard.failure()
            raise EngineError(self.name, f"{type(exc).__name__}: {exc}", retryable=True) from None
        except aiohttp.ClientResponseError as exc:
            self.guard.failure()
            raise EngineError(
                self.name, f"HTTP {exc.status}: {exc.message}", retryable=exc.status in RETRY_STATUS
            ) from None
        except (TimeoutError, aiohttp.ServerTimeoutError):
            self.guard.failure()
            raise EngineError(self.name, "timed out", retryable=True) from None
        except (aiohttp.ClientError, OSError) as exc:
            self.guard.failure()
            raise EngineError(
                self.name, f"cannot reach the service ({unreachable_why(exc)})", retryable=False
            ) from None
        self.guard.success()
        return speech

    def _decode(self, text: str, mp3: bytes, words: list[tuple[str, int, int]]) -> Speech:
        audio = decode_mp3(mp3, self.config.ffmpeg, self.config.decode_timeout)
        a, b = speech_bounds(audio)
        if b <= a:
            raise EngineError(self.name, "the audio is silent", retryable=True)
        lead_ms = samples_to_ms(a, SAMPLE_RATE)
        length_ms = samples_to_ms(len(audio), SAMPLE_RATE)
        if words and words[-1][2] > length_ms + 50:
            raise EngineError(
                self.name,
                f"truncated audio: {length_ms} ms for speech that runs to {words[-1][2]} ms",
                True,
            )
        # Trim edge's leading and ~1.2 s trailing silence; boundaries move with the trim.
        trimmed = audio[a:b]
        end_ms = samples_to_ms(len(trimmed), SAMPLE_RATE)
        bounds = [
            Boundary(x.start, x.end, max(0, x.start_ms - lead_ms), min(end_ms, x.end_ms - lead_ms))
            for x in map_words(text, words)
        ]
        return Speech(trimmed, SAMPLE_RATE, bounds)

    def synthesize(self, request: TtsRequest) -> Speech:
        last: EngineError | None = None
        for attempt in range(self.config.attempts):
            try:
                return self._attempt(request)
            except EngineError as exc:
                last = exc
                if not exc.retryable or attempt + 1 == self.config.attempts:
                    break
                delay = self.config.backoff * 2**attempt * random.uniform(0.5, 1.5)
                log.warning(
                    "edge attempt %d failed (%s); retrying in %.2f s",
                    attempt + 1,
                    exc.message,
                    delay,
                    extra={"voice": request.voice, "attempt": attempt + 1},
                )
                time.sleep(delay)
        assert last is not None
        log.warning(
            "edge gave up after %d attempt(s): %s",
            attempt + 1,
            last.message,
            extra={"voice": request.voice, "attempt": attempt + 1},
        )
        raise EngineError(
            self.name,
            f"gave up after {attempt + 1} attempt(s): {last.message.split(': ', 1)[-1]}",
            retryable=False,
        )

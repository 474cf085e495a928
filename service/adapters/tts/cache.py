"""Content-addressed TTS cache, shared by the fleet through the storage (local files, or the
object store's ``cache/`` prefix).

The key covers everything that changes the audio: engine, engine version, voice, rate,
pitch, volume, phrase size, the phrase split and the normalised text (the text is what the
engine is given, after the speech front-end, so a changed lexicon or phrasing is a new key).
The value is the trimmed audio (WAV) and its boundaries (JSON), each put atomically."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from service.adapters.storage.local import LocalBlobs
from service.audio import quantize, read_wav, wav_bytes
from service.domain.errors import AudioFormatError
from service.ports import Blobs, Boundary, Speech, TtsEngine, TtsRequest


def normalize_text(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def cache_key(engine: TtsEngine, request: TtsRequest) -> str:
    parts = [
        engine.name,
        engine.version,
        request.voice,
        f"{request.rate:.4f}",
        request.pitch,
        request.volume,
        str(request.phrase_chars),
        [normalize_text(request.text[a:b]) for a, b in request.phrases],
        normalize_text(request.text),
    ]
    if request.cache_scope:  # scoped entries apart; the shared ones keep their keys
        parts.append(["scope", request.cache_scope])
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class CachedEngine:
    """Wraps any engine: a hit makes no call to it."""

    def __init__(self, engine: TtsEngine, store: Blobs | Path) -> None:
        self.engine = engine
        self.store = LocalBlobs(store) if isinstance(store, Path) else store
        self.name = engine.name
        self.min_rate = engine.min_rate
        self.max_rate = engine.max_rate
        self.reader = getattr(engine, "reader", "text")
        # An engine that predicts its length (kokoro) lets the fit choose the rate first: the
        # prediction is cheap and made fresh (it decides which entry is asked for).
        self.predict_ms: Callable[[TtsRequest], int] | None = getattr(engine, "predict_ms", None)
        self.hits = self.misses = 0

    @property
    def version(self) -> str:
        return self.engine.version

    def synthesize(self, request: TtsRequest) -> Speech:
        key = cache_key(self.engine, request)
        base = f"{self.engine.name}/{key[:2]}/{key}"
        wav = self.store.get(base + ".wav")
        meta = self.store.get(base + ".json") if wav is not None else None
        if wav is not None and meta is not None:
            try:
                audio, rate = read_wav(wav)
                bounds = [Boundary(**b) for b in json.loads(meta.decode("utf-8"))]
                self.hits += 1
                return Speech(audio, rate, bounds, cached=True)
            except (OSError, AudioFormatError, ValueError, TypeError):
                pass  # a damaged entry is simply made again
        self.misses += 1
        speech = self.engine.synthesize(request)
        # Return exactly what a later hit will read, so a job renders the same either way.
        speech.audio = quantize(speech.audio)
        # The boundaries are written first: an entry counts only once its WAV exists.
        self.store.put(base + ".json", json.dumps([asdict(b) for b in speech.boundaries]).encode())
        self.store.put(base + ".wav", wav_bytes(speech.audio, speech.rate))
        return speech

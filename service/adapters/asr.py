"""The speech check's recogniser: Whisper base (int8, CTranslate2) from the recogniser pack
(service/voicepacks/whisper_base.py), features in numpy (service/audio/logmel.py).

No ``tokenizers``: the check encodes text only to force a transcript (the 多音字 test, score():
a small BPE from the pack's merges, BytePairs) and its prompt is four special tokens, looked up
by name; decoding Whisper's byte-level BPE is the vocabulary's strings mapped back to
bytes (GPT-2's table, below). The ``tokenizers`` wheel requires huggingface_hub, a hub client
with its own HTTP stack and a native transfer agent, none of which an offline check needs.

The model is loaded once per process, on the first transcription (never for a job with the
check off or whose segments are all skipped), and shared by the threads of a local render
(CTranslate2 runs one request at a time per replica; a lock keeps the load single)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import threading
import time
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from service.audio import logmel, resample
from service.ports.asr import HeardWord, Transcript
from service.voicepacks import whisper_base

NAME = "whisper-base-ct2-int8"
# Windows of at most 15 s, not the encoder's 30: dense Chinese (6-7 syllables a second, 2-3
# byte-level tokens a Traditional character) overflows the decoder's 448 tokens in 30 s, and
# greedy decoding loops more often on long windows (GAGAR's 27 s segment 2: 贴着贴着...).
WINDOW_S = 15.0
MAX_SECONDS = 600.0  # a segment's longest slot (spec MAX_SECONDS): 40 windows at most
MAX_TOKENS = 400  # the decoder's 448 less the prompt, with room
LOOPING = 2.4  # zlib compression ratio over which a transcript is a loop (Whisper's own test)
LANGUAGES = ("zh", "en")
# The encoder's input: the window's audio and 2 s of silence, and never under 15 s. Whisper
# was trained on 30 s inputs and cut short it stops early or drops the last word; on the
# labelled set (bench/speech_check.py) 15 s heard the correct segments as well as 30 s did
# (mean CER 0.087 and WER 0.127 against 0.203 / 0.095) at half the encoder's cost, 20 s no
# better, and 2-8 s of padding alone lost words ("we compress" for a whole sentence).
MIN_FRAMES = 1500
PAD_FRAMES = 200  # 2 s of silence after the speech (logmel.chunk says why)


@lru_cache(maxsize=1)
def _byte_of() -> dict[str, int]:
    """GPT-2's byte-level alphabet: the printable character standing for each byte."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    kept += range(ord("®"), ord("ÿ") + 1)
    chars, extra = {b: chr(b) for b in kept}, 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return {c: b for b, c in chars.items()}


def decode_tokens(tokens: list[str]) -> str:
    """Vocabulary strings -> text (special tokens dropped; bytes a cut left incomplete are
    replaced rather than raising)."""
    table = _byte_of()
    raw = bytes(
        table[c] for t in tokens if not (t.startswith("<|") and t.endswith("|>")) for c in t
    )
    return raw.decode("utf-8", errors="replace").strip()


def looping(text: str) -> bool:
    """A transcript that repeats itself (the decoder stuck in a loop)."""
    raw = text.encode("utf-8")
    return len(raw) > 24 and len(raw) / len(zlib.compress(raw)) > LOOPING


def windows(n: int, rate: int, audio: np.ndarray) -> list[tuple[int, int]]:
    """Cut points for windows of WINDOW_S: each window ends at its quietest 50 ms within the last
    5 s (a word is cut only when there is no pause at all)."""
    size, hop = int(WINDOW_S * rate) - rate // 10, rate // 20
    out, start = [], 0
    while n - start > size:
        lo, hi = start + size - 5 * rate, start + size
        frames = audio[lo:hi][: (hi - lo) // hop * hop].reshape(-1, hop)
        cut = lo + int(np.argmin(np.abs(frames).mean(axis=1))) * hop + hop // 2
        out.append((start, cut))
        start = cut
    out.append((start, n))
    return out


class WhisperRecogniser:
    """The Recogniser port on CTranslate2's Whisper. ``pack``: a built pack's directory (None:
    the default cache's, found on first use); ``threads``: CTranslate2's intra-op threads."""

    name = NAME
    max_seconds = MAX_SECONDS
    score_seconds = WINDOW_S - 0.1  # score() takes one window

    def __init__(self, pack: Path | None = None, threads: int = 0, beam_size: int = 5) -> None:
        self.pack = pack
        self.threads = threads or min(2, os.cpu_count() or 1)
        self.beam_size = beam_size
        self._model: Any = None
        self._vocab: list[str] | None = None
        self._lock = threading.Lock()
        self._last = threading.local()  # this thread's last window: (digest, encoded, frames)
        self._bpe: BytePairs | None = None
        self.load_seconds = 0.0

    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                t0 = time.perf_counter()
                pack = self.pack or whisper_base.located()
                import ctranslate2  # ~0.2 s: only a process that checks pays it

                self._model = ctranslate2.models.Whisper(
                    str(pack), device="cpu", compute_type="int8", intra_threads=self.threads
                )
                self.load_seconds = time.perf_counter() - t0
            return self._model

    def transcribe(
        self, audio: np.ndarray, rate: int, language: str, timed: bool = False
    ) -> Transcript:
        if language not in LANGUAGES:
            raise ValueError(f"the recogniser is not set up for {language!r}")
        pcm = resample(np.asarray(audio, dtype=np.float32), rate, logmel.RATE)
        pcm = pcm[: int(self.max_seconds * logmel.RATE)]
        model = self.model()
        cpu0 = time.process_time()
        texts: list[str] = []
        words: list[HeardWord] = []
        for a, b in windows(len(pcm), logmel.RATE, pcm):
            text, heard = self._window(model, pcm[a:b], language, timed)
            texts.append(text)
            shift = round(a * 1000 / logmel.RATE)
            words += [HeardWord(w.text, w.start_ms + shift, w.end_ms + shift) for w in heard]
        return Transcript(
            text=(" " if language == "en" else "").join(t for t in texts if t),
            language=language,
            words=tuple(words),
            audio_seconds=round(len(pcm) / logmel.RATE, 3),
            cpu_seconds=round(time.process_time() - cpu0, 3),
        )

    def _window(
        self, model: Any, pcm: np.ndarray, language: str, timed: bool = False
    ) -> tuple[str, list[HeardWord]]:
        import ctranslate2

        if len(pcm) < logmel.RATE // 10:  # under 0.1 s: nothing to hear
            return "", []
        mel = logmel.chunk(logmel.log_mel(pcm), PAD_FRAMES, MIN_FRAMES)
        # Encoded once, kept for score(): the 多音字 test's forced passes on the same audio.
        encoded = np.asarray(model.encode(ctranslate2.StorageView.from_array(mel), to_cpu=True))
        frames = min(mel.shape[-1], len(pcm) // logmel.HOP)
        self._last.value = (_digest(pcm), encoded, frames)
        features = ctranslate2.StorageView.from_array(encoded)
        prompt = _prompt(language)
        limit = MAX_TOKENS + len(prompt)
        result = model.generate(features, [prompt], beam_size=self.beam_size, max_length=limit)
        text = decode_tokens(list(result[0].sequences[0]))
        if looping(text) or len(result[0].sequences[0]) >= MAX_TOKENS:
            # Whisper's fallback, cheaper: a beam and a penalty on repeats, once (x1.5 cost).
            result = model.generate(
                features, [prompt], beam_size=5, repetition_penalty=1.1, max_length=limit
            )
            text = decode_tokens(list(result[0].sequences[0]))
        if not timed or not text:
            return text, []
        return text, self._timed(model, features, prompt[:3], result[0], frames)

    def _timed(
        self, model: Any, features: Any, start: list[str], result: Any, frames: int
    ) -> list[HeardWord]:
        """The words of ``result`` timed by CTranslate2's cross-attention alignment (the
        model's alignment heads, as faster-whisper's word timestamps): a token starts at the
        first audio frame (20 ms) the alignment path gives it."""
        ids = self._ids()
        eot = ids["<|endoftext|>"]
        tokens = [int(i) for i in result.sequences_ids[0] if int(i) < eot]
        if not tokens:
            return []
        found = model.align(
            features, [ids[t] for t in start], [[*tokens, eot]], [frames], median_filter_width=7
        )[0]
        starts = [-1] * (len(tokens) + 1)
        for text_index, time_index in found.alignments:
            if 0 <= text_index <= len(tokens) and starts[text_index] < 0:
                starts[text_index] = int(time_index) * 20
        for i in range(1, len(starts)):  # a token the path skips starts where the last did
            starts[i] = max(starts[i], starts[i - 1], 0)
        return token_words(self._vocabulary(), tokens, starts)

    def score(self, audio: np.ndarray, rate: int, language: str, texts: list[str]) -> list[float]:
        """The log-probability of each of ``texts`` as the transcript of ``audio`` (forced
        decoding: CTranslate2's align gives each forced token's probability), for audio of one
        window; the encoder's output is the last transcribe()'s when it was this audio."""
        import ctranslate2

        pcm = resample(np.asarray(audio, dtype=np.float32), rate, logmel.RATE)
        if len(pcm) > int(self.score_seconds * logmel.RATE):
            raise ValueError("score() takes one window of audio")
        model = self.model()
        last = getattr(self._last, "value", None)
        if last is None or last[0] != _digest(pcm):
            self._window(model, pcm, language)
            last = self._last.value
        _, encoded, frames = last
        ids, bpe = self._ids(), self._pairs()
        start = [ids[t] for t in _prompt(language)]
        tokens = [[*bpe.encode(t), ids["<|endoftext|>"]] for t in texts]
        batch = ctranslate2.StorageView.from_array(np.repeat(encoded, len(texts), axis=0))
        found = model.align(batch, start, tokens, [frames] * len(texts))
        return [float(np.log(np.maximum(r.text_token_probs, 1e-12)).sum()) for r in found]

    def _pairs(self) -> BytePairs:
        if self._bpe is None:
            pack = self.pack or whisper_base.located()
            self._bpe = BytePairs(pack / "tokenizer.json", self._vocabulary())
        return self._bpe

    def _vocabulary(self) -> list[str]:
        if self._vocab is None:
            self._vocab = vocabulary(self.pack or whisper_base.located())
        return self._vocab

    def _ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._vocabulary()) if t.startswith("<|")}


def _prompt(language: str) -> list[str]:
    """The decoder's start: transcribe ``language``, no timestamps (transcribe() and score()
    decode from the same start, so a forced transcript is scored as one would be heard)."""
    return ["<|startoftranscript|>", f"<|{language}|>", "<|transcribe|>", "<|notimestamps|>"]


def _digest(pcm: np.ndarray) -> bytes:
    return hashlib.blake2b(pcm.tobytes(), digest_size=16).digest()


# GPT-2's pre-tokenizer (the ``tokenizers`` ByteLevel regex) in ``re``'s terms: \p{L} as
# [^\W\d_], \p{N} as \d (the texts scored are Chinese transcripts: the gaps do not arise).
_PIECES = re.compile(r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+")


class BytePairs:
    """Whisper's byte-level BPE encoder from the pack's tokenizer.json merges: the few lines
    score() needs to force a text, rather than the ``tokenizers`` wheel (see the top)."""

    def __init__(self, tokenizer: Path, vocab: list[str]) -> None:
        merges = json.loads(tokenizer.read_text(encoding="utf-8"))["model"]["merges"]
        self.ranks = {(str(a), str(b)): k for k, (a, b) in enumerate(merges)}
        self.ids = {t: i for i, t in enumerate(vocab)}
        self.char_of = {b: c for c, b in _byte_of().items()}

    def encode(self, text: str) -> list[int]:
        out: list[int] = []
        for m in _PIECES.finditer(text):
            parts = list("".join(self.char_of[b] for b in m.group().encode("utf-8")))
            while len(parts) > 1:
                rank, k = min(
                    (self.ranks.get(pair, 1 << 30), k)
                    for k, pair in enumerate(itertools.pairwise(parts))
                )
                if rank == 1 << 30:
                    break
                parts[k : k + 2] = [parts[k] + parts[k + 1]]
            out += [self.ids[p] for p in parts]
        return out


def token_words(vocab: list[str], tokens: list[int], starts: list[int]) -> list[HeardWord]:
    """Byte-level tokens (ids into ``vocab``) with their start times (ms; one more than the
    tokens: the end) as pieces of text that decode whole: a word with its leading space, a
    Chinese character whose bytes span several tokens, punctuation."""
    table = _byte_of()
    out: list[HeardWord] = []
    pending, first = b"", 0
    for k, token in enumerate(tokens):
        if not pending:
            first = k
        pending += bytes(table[c] for c in vocab[token])
        try:
            text = pending.decode("utf-8")
        except UnicodeDecodeError:
            if len(pending) < 4:
                continue
            text = pending.decode("utf-8", errors="replace")
        out.append(HeardWord(text, starts[first], max(starts[k + 1], starts[first])))
        pending = b""
    return out


def vocabulary(pack: Path) -> list[str]:
    """The pack's token strings, in id order (tests decode through it)."""
    tokens: list[str] = json.loads((pack / "vocabulary.json").read_text(encoding="utf-8"))
    return tokens


_t2s: Any = None
_t2s_lock = threading.Lock()


def fold_simplified(text: str) -> str:
    """Traditional characters to Simplified (OpenCC t2s): Whisper writes Mandarin in either."""
    global _t2s
    with _t2s_lock:
        if _t2s is None:
            import opencc

            _t2s = opencc.OpenCC("t2s")
        out: str = _t2s.convert(text)
    return out

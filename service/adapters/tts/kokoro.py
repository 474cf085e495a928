"""kokoro: Kokoro-82M v1.0 (int8 ONNX, Apache-2.0) offline, Mandarin and English, from the pack
``narrate voices install kokoro`` builds (service/voicepacks/kokoro.py).

It is given what espeak is given (the front-end's "pinyin" reader: tone-number syllables,
numbers, units and symbols already read out, the lexicon and the job's pronunciations applied,
acronyms spelled), never misaki's own front-end: the readings every engine gets are the ones
Kokoro gets. service/adapters/tts/kokoro_text.py turns them into Kokoro's phoneme symbols;
English words (in English scripts, and inside Chinese ones) go through espeak-ng's IPA, one
espeak-ng call per request for the words not seen before.

Timing comes from the model: the pack's graph returns the frames each phoneme token lasts, so
every syllable, letter and word gets its span. A span that starts after silence (the first of a
call, the first after a pause) starts where its sound does, found in the audio: the frames are
25 ms, a cue must start within 10 ms of the speech. A call takes at most 510 tokens; longer
text is cut after a clause mark.
"""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import numpy as np

from service.adapters.process import run
from service.adapters.tts.kokoro_model import FRAME, SAMPLE_RATE, KokoroModel
from service.adapters.tts.kokoro_text import Said, chunks, from_espeak, say, units
from service.audio import silence, speech_bounds
from service.domain.errors import EngineError, MediaError
from service.domain.units import ms_to_samples, samples_to_ms
from service.ports import Boundary, Speech, TtsRequest

DRIVER = (
    "narrate-kokoro/4 (pinyin front-end, a word's syllables joined, misaki zh symbols, "
    "espeak-ng en)"
)
# Silence between two calls, by how the first ends (the model's own pause is trimmed with it).
SENTENCE_GAP_MS = 350
CLAUSE_GAP_MS = 200
# Tokens a call aims at (the model takes 510): its activations grow with the call's audio, and
# GAGAR's 20 s segment 2 peaked at 662 MB RSS in 510-token calls, 454 MB in 250-token ones,
# at the same CPU per second of speech. Calls still end after a sentence or a clause.
CALL_TOKENS = 250
ONSET_LEVEL = 10 ** (-45 / 20)  # RMS where speech starts (the renders' cue checks use it too)

Span = tuple[int, int, int, int]  # spoken start, end; first sample, end sample
Frames = np.ndarray  # the frames each token lasts, the two pads included


class KokoroEngine:
    name = "kokoro"
    reader = "pinyin"
    min_rate = 0.5  # the model's speed input: beyond 0.5..2 words smear or clip
    max_rate = 2.0

    def __init__(self, pack: Path, espeak: str = "espeak-ng", threads: int = 1) -> None:
        self.pack = pack
        self.espeak = espeak
        self.model = KokoroModel(pack, threads)
        self._words: dict[tuple[str, str], str] = {}  # (espeak voice, word) -> phonemes
        self._lock = threading.Lock()

    @cached_property
    def version(self) -> str:
        import json

        try:
            key = json.loads((self.pack / "pack.json").read_text(encoding="utf-8"))["key"]
        except (OSError, ValueError, KeyError) as exc:
            raise EngineError(self.name, f"the voice pack has no pack.json ({exc})") from None
        return f"kokoro {key}; {DRIVER}"

    def load(self) -> None:
        """Load the model now (the first synthesis would otherwise)."""
        _ = self.model.session

    def english(self, words: list[str], british: bool = False) -> dict[str, str]:
        """Kokoro phonemes of English words (lower-cased keys), from espeak-ng's IPA: the words
        not asked before in one call, a word a line (a comma keeps each its own clause)."""
        voice = "en-gb" if british else "en-us"
        with self._lock:
            todo = sorted({w.lower() for w in words} - {w for v, w in self._words if v == voice})
        if todo:
            said = "".join(f"{w},\n" for w in todo).encode()
            try:
                out = run([self.espeak, "-q", "--ipa", "--tie=^", "-v", voice], 60, stdin=said)
            except MediaError as exc:
                raise EngineError(self.name, f"espeak-ng (English words): {exc}") from None
            lines = out.stdout.decode("utf-8", errors="replace").strip().splitlines()
            if len(lines) != len(todo):
                lines = [self._one(w, voice) for w in todo]
            with self._lock:
                for w, ipa in zip(todo, lines, strict=True):
                    self._words[(voice, w)] = from_espeak(ipa.replace(" ", ""), british)
        return {w.lower(): self._words[(voice, w.lower())] for w in words}

    def _one(self, word: str, voice: str) -> str:
        try:
            out = run([self.espeak, "-q", "--ipa", "--tie=^", "-v", voice], 30, stdin=word.encode())
        except MediaError as exc:
            raise EngineError(self.name, f"espeak-ng (English word {word!r}): {exc}") from None
        return out.stdout.decode("utf-8", errors="replace").strip()

    def phonemes(self, text: str, voice: str = "zf_xiaoxiao") -> list[str]:
        """What the model is given for ``text``, one string per call. For listening checks,
        the bench and tests."""
        said = self._said(text, voice)
        calls = chunks(said, CALL_TOKENS)
        return ["".join(s.gap + s.phonemes for s in chunk).lstrip() for chunk in calls]

    def _said(self, text: str, voice: str) -> list[Said]:
        found = units(text)
        words = [u.text for u in found if u.kind == "word"]
        british = voice[:1] == "b"
        return say(found, self.english(words, british) if words else {})

    def _tokens(self, chunk: list[Said]) -> tuple[list[int], list[tuple[int, int]]]:
        """A call's token ids, and each unit's range of them."""
        vocab = self.model.vocab
        tokens: list[int] = []
        ranges: list[tuple[int, int]] = []
        for i, s in enumerate(chunk):
            tokens += [vocab[c] for c in (s.gap if i else "") if c in vocab]
            first = len(tokens)
            tokens += [vocab[c] for c in s.phonemes if c in vocab]
            ranges.append((first, len(tokens)))
        return tokens, ranges

    def _call(self, chunk: list[Said], voice: str, speed: float) -> tuple[np.ndarray, list[Span]]:
        """One model call: its audio (silence trimmed) and every unit's span in it."""
        tokens, ranges = self._tokens(chunk)
        audio, durations = self.model.run(tokens, self.model.style(voice, len(tokens)), speed)
        spans: list[Span] = []
        for p in _placed(chunk, ranges, durations):
            start = _onset(audio, p.start, p.end) if p.after_pause else p.start
            spans.append((p.said.unit.start, p.said.unit.end, start, p.end))
        if not spans:
            return silence(0), []
        lead = spans[0][2]
        loud = speech_bounds(audio[spans[-1][2] :])
        tail = max(spans[-1][2] + loud[1], spans[-1][2] + 1)
        shifted = [(x, y, a - lead, min(b, tail) - lead) for x, y, a, b in spans]
        return audio[lead:tail], shifted

    def predict_ms(self, request: TtsRequest) -> int:
        """How long ``synthesize(request)`` will be, from the model's durations alone (its
        front half: 3 % of a synthesis): each call from its first unit's start to its sound's
        end, and the gaps between calls. The model parks a call's closing silence on its last
        token (29-30 frames in Mandarin, 13-15 in English; trimmed from the audio): the sound
        ends about where that token starts. Measured on the bundled examples, call by call:
        within 4 frames (100 ms) of the synthesis, 1-2 frames on average."""
        speed = self._speed(request)
        samples = 0
        prev: list[Said] = []
        for chunk in chunks(self._sayable(request), CALL_TOKENS):
            tokens, ranges = self._tokens(chunk)
            style = self.model.style(request.voice, len(tokens))
            placed = _placed(chunk, ranges, self.model.durations(tokens, style, speed))
            if not placed:
                continue
            if prev:
                samples += ms_to_samples(_gap(prev) / speed, SAMPLE_RATE)
            samples += placed[-1].last - placed[0].start
            prev = chunk
        return _ms(samples)

    def _speed(self, request: TtsRequest) -> float:
        """The model's speed input: the request's rate within what the model says cleanly."""
        return min(max(request.rate, self.min_rate), self.max_rate)

    def _sayable(self, request: TtsRequest) -> list[Said]:
        said = self._said(request.text, request.voice)
        if not any(s.unit.kind != "pause" for s in said):
            raise EngineError(self.name, f"nothing to say in {request.text[:60]!r}")
        return said

    def synthesize(self, request: TtsRequest) -> Speech:
        speed = self._speed(request)
        pieces: list[np.ndarray] = []
        boundaries: list[Boundary] = []
        cursor = 0
        prev: list[Said] = []
        for chunk in chunks(self._sayable(request), CALL_TOKENS):
            audio, spans = self._call(chunk, request.voice, speed)
            if not spans:
                continue
            if prev:
                pieces.append(silence(ms_to_samples(_gap(prev) / speed, SAMPLE_RATE)))
                cursor += len(pieces[-1])
            boundaries += [Boundary(x, y, _ms(cursor + a), _ms(cursor + b)) for x, y, a, b in spans]
            pieces.append(audio)
            cursor += len(audio)
            prev = chunk
        audio = np.concatenate(pieces) if pieces else silence(0)
        return Speech(audio.astype(np.float32), SAMPLE_RATE, boundaries)


class Placed(NamedTuple):
    """A unit where the model's durations put it, in samples of its call's audio."""

    said: Said
    start: int
    end: int
    last: int  # where its last token starts
    after_pause: bool  # silence comes before it (the call's start, or a pause)


def _placed(chunk: list[Said], ranges: list[tuple[int, int]], durations: Frames) -> list[Placed]:
    """Every unit but the pauses, placed by the model's durations."""
    edges = np.concatenate([[0], np.cumsum(durations)]) * FRAME  # token k is duration k + 1
    out: list[Placed] = []
    after_pause = True
    for s, (a, b) in zip(chunk, ranges, strict=True):
        if s.unit.kind == "pause":
            after_pause = True
            continue
        out.append(Placed(s, int(edges[a + 1]), int(edges[b + 1]), int(edges[b]), after_pause))
        after_pause = False
    return out


def _ms(samples: int) -> int:
    return samples_to_ms(samples, SAMPLE_RATE)


def _gap(chunk: list[Said]) -> int:
    """The silence after a call, by its last mark (the model's own pause was trimmed)."""
    last = chunk[-1]
    if last.unit.kind != "pause":
        return CLAUSE_GAP_MS
    return SENTENCE_GAP_MS if last.phonemes in ".!?…" else CLAUSE_GAP_MS


def _onset(audio: np.ndarray, start: int, end: int) -> int:
    """Where sound begins for a unit the model says starts at ``start`` after silence: the
    first 5 ms whose level passes -45 dBFS (a breath or click below that is not speech), from
    two frames before ``start`` (the frames are coarse) up to the unit's end."""
    lo = max(0, start - 2 * FRAME)
    hop = SAMPLE_RATE // 200
    window = audio[lo : max(lo, end)]
    frames = window[: len(window) // hop * hop].reshape(-1, hop).astype(np.float64)
    loud = np.flatnonzero(np.sqrt(np.mean(frames**2, axis=1)) > ONSET_LEVEL)
    return lo + int(loud[0]) * hop if len(loud) else start

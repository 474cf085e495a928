"""espeak-ng: offline, no boundary events, so it is driven phrase by phrase and every
phrase's timing is measured from its own audio.

Mandarin is spoken with the ``cmn-latn-pinyin`` voice from tone-number pinyin (the front-end's
"pinyin" reader): the ``cmn`` voice as shipped (espeak-ng 1.51) reads an English tone digit after
every hanzi. Pinyin has no way to say English, so within a phrase the runs that are not pinyin
syllables (``rollout``, ``G R P O``) are spoken by the English voice: one SSML utterance per
phrase, the English voice as its base and each Mandarin run in a ``<voice>`` element (the other
way round, espeak-ng 1.51 returns to ``cmn``, not ``cmn-latn-pinyin``, after an English run)."""

from __future__ import annotations

import re
from functools import cached_property
from html import escape

import numpy as np

from service.adapters.process import NOT_FOUND, run
from service.audio import read_wav, silence, speech_bounds
from service.domain.errors import EngineError, MediaError
from service.domain.text import Segmenter, pause_after, split_phrases
from service.domain.units import ms_to_samples, samples_to_ms
from service.ports import Boundary, Speech, TtsRequest

BASE_WPM = 175
# How this adapter drives espeak-ng; part of ``version`` so the TTS cache never serves audio
# made the old way after it changes.
DRIVER = "narrate-espeak/2 (pinyin, SSML per phrase)"
PINYIN_VOICE = "cmn-latn-pinyin"
ENGLISH_VOICE = "en-us"
# A pinyin syllable as the front-end writes it (dai4), or an English word / spelled letter.
_RUN_TOKEN = re.compile(
    r"(?P<py>[a-z]+[1-5](?![\w])|[\u3400-\u9fff\uf900-\ufaff]+)|(?P<en>[A-Za-z][A-Za-z'’\-]*)"
)


_LETTER_A = re.compile(r"(?<![\w'’-])A(?![\w'’-])")


def runs(phrase: str, voice: str) -> list[tuple[str, str]]:
    """Split a phrase into (text, espeak voice) runs: pinyin syllables (and any hanzi) for the
    Mandarin voice, other Latin words for the English voice of the same variant; punctuation
    and spaces stay with the run before them."""
    if not voice.startswith(PINYIN_VOICE):
        return [(phrase, voice)] if phrase.strip() else []
    english = ENGLISH_VOICE + voice[len(PINYIN_VOICE) :]  # keeps a variant such as +f3
    out: list[tuple[str, str]] = []
    current = voice
    start = 0
    for m in _RUN_TOKEN.finditer(phrase):
        want = voice if m.lastgroup == "py" else english
        if want != current and phrase[start : m.start()].strip():
            out.append((phrase[start : m.start()], current))
            start = m.start()
        current = want
    if phrase[start:].strip():
        out.append((phrase[start:], current))
    # A spelled letter A among letters (G A G A R) is read as the article "a" by en-us.
    return [(_LETTER_A.sub("eh", t) if v == english else t, v) for t, v in out]


def utterance(phrase: str, voice: str) -> tuple[str, str, bool]:
    """What one espeak-ng call is given for a phrase: (text, voice, is SSML)."""
    parts = runs(phrase, voice)
    if len(parts) <= 1:
        return (parts[0][0], parts[0][1], False) if parts else (phrase, voice, False)
    english = ENGLISH_VOICE + voice[len(PINYIN_VOICE) :]
    body = "".join(
        escape(text, quote=False) if v == english else f'<voice name="{v}">{escape(text)}</voice>'
        for text, v in parts
    )
    return f"<speak>{body}</speak>", english, True


def version_args(binary: str) -> list[str]:
    return [binary, "--version"]


def speak_args(binary: str, voice: str, wpm: int, ssml: bool) -> list[str]:
    """One phrase (on stdin) -> a WAV on stdout."""
    return [binary, "-v", voice, "-s", str(wpm), "--stdout", *(["-m"] if ssml else [])]


def phoneme_args(binary: str, voice: str, ssml: bool) -> list[str]:
    """One phrase (on stdin) -> its phoneme mnemonics on stdout, no audio."""
    return [binary, "-v", voice, "-q", "-x", *(["-m"] if ssml else [])]


class EspeakEngine:
    name = "espeak"
    reader = "pinyin"  # what the speech front-end gives it for Chinese
    min_rate = 80 / BASE_WPM
    max_rate = 4.0  # 700 words/min: espeak-ng's sonic speed-up still sounds clean there

    def __init__(
        self, binary: str = "espeak-ng", timeout: float = 60.0, segment: Segmenter | None = None
    ) -> None:
        self.binary = binary
        self.timeout = timeout
        self.segment = segment  # phrases split as the subtitles will be: never inside a word

    @cached_property
    def version(self) -> str:
        try:
            out = run(version_args(self.binary), min(self.timeout, 10.0)).stdout.decode()
        except MediaError as exc:
            raise EngineError(self.name, f"{self.binary} is not usable: {exc}") from None
        return f"{out.split('Data at')[0].strip() or 'unknown'}; {DRIVER}"

    def _run(self, argv: list[str], text: str) -> bytes:
        """Text goes on stdin so that no phrase can be read as an option."""
        try:
            return run(argv, self.timeout, stdin=text.encode()).stdout
        except MediaError as exc:
            if exc.returncode is None:
                raise EngineError(
                    self.name, f"timed out after {self.timeout:g} s", retryable=True
                ) from None
            if exc.returncode == NOT_FOUND:
                raise EngineError(self.name, exc.stderr_tail) from None
            raise EngineError(
                self.name, f"exit {exc.returncode}: {exc.stderr_tail[-300:]}"
            ) from None

    def _speak(self, text: str, voice: str, wpm: int, ssml: bool = False) -> tuple[np.ndarray, int]:
        out = self._run(speak_args(self.binary, voice, wpm, ssml), text)
        if not out:
            raise EngineError(self.name, "exit 0 but no audio")
        return read_wav(out)

    def phonemes(self, text: str, voice: str) -> list[tuple[str, str]]:
        """What espeak-ng makes of ``text`` spoken as one phrase, as ``synthesize`` calls it:
        (voice, phoneme mnemonics from ``-x``). For listening checks and tests."""
        said, said_voice, ssml = utterance(text, voice)
        out = self._run(phoneme_args(self.binary, said_voice, ssml), said)
        return [(said_voice, out.decode(errors="replace").strip())]

    def synthesize(self, request: TtsRequest) -> Speech:
        rate = min(max(request.rate, self.min_rate), self.max_rate)
        wpm = round(BASE_WPM * rate)
        pieces: list[np.ndarray] = []
        boundaries: list[Boundary] = []
        sr = 22050
        cursor = speech_end = 0  # samples
        phrases = list(request.phrases) or split_phrases(
            request.text, request.phrase_chars, self.segment
        )
        for start, end in phrases:
            phrase = request.text[start:end]
            said, voice, ssml = utterance(phrase, request.voice)
            audio, sr = self._speak(said, voice, wpm, ssml)
            a, b = speech_bounds(audio)
            if b > a:
                pieces.append(audio[a:b])
                boundaries.append(
                    Boundary(
                        start, end, samples_to_ms(cursor, sr), samples_to_ms(cursor + b - a, sr)
                    )
                )
                cursor += b - a
                speech_end = cursor
            pause = silence(ms_to_samples(pause_after(phrase) / rate, sr))
            pieces.append(pause)
            cursor += len(pause)
        # The last phrase's pause is not speech: drop it so the audio ends where speech ends.
        audio = np.concatenate(pieces)[:speech_end] if pieces else silence(0)
        return Speech(audio.astype(np.float32), sr, boundaries)

"""OpenAI's speech request (``POST /v1/audio/speech``) read into what narrate speaks: which
engine (``model``), which voice, the text split into the sentences synthesized one by one
(the first is encoded and sent while the next is spoken), and the character and word times
``/with-timestamps`` answers in ElevenLabs' field names. Pure: no engine, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from service.domain.wire import JsonObject

ENGINES = ("kokoro", "edge", "espeak", "fastspeech2", "auto")
# OpenAI's own model names: a client written against OpenAI runs unchanged, on narrate's
# casting (edge where it answers, else the offline voices).
MODEL_ALIASES = {"tts-1": "auto", "tts-1-hd": "auto", "gpt-4o-mini-tts": "auto"}
OPENAI_VOICES = frozenset(
    ["alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse"]
)
# What each format is sent as (OpenAI's): opus in Ogg, aac as ADTS, pcm raw s16le 24 kHz.
MEDIA_TYPES = {
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": "audio/pcm",
}
MIN_SPEED, MAX_SPEED = 0.25, 4.0  # OpenAI's range, accepted as such
# narrate's rate range (a segment's -50 %..+100 %): a speed outside it is clamped, and the
# X-Narrate-Speed header says what was used.
SLOWEST, FASTEST = 0.5, 2.0
SENTENCE_CHARS = 220  # a sentence longer than this is split at a clause mark or a space
_END = re.compile(r"[。！？!?；;…]+[”’」』)\]]*|\.(?=\s|$)|\n+")
_CLAUSE = re.compile(r"[，,、：:]|\s")


class SpeechError(Exception):
    """A request OpenAI's client reads as an error: ``{"error": {message, type, param,
    code}}`` with the HTTP ``status``; ``param`` names the request field."""

    def __init__(
        self,
        message: str,
        param: str | None,
        code: str,
        status: int = 400,
        kind: str = "invalid_request_error",
        retry_after: float = 1.0,  # a 429's Retry-After, in seconds
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.message, self.param, self.code, self.status, self.kind = (
            message,
            param,
            code,
            status,
            kind,
        )

    def body(self) -> ErrorBody:
        """The error as OpenAI's API sends one."""
        return {
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        }


class ErrorDetail(TypedDict):
    message: str
    type: str
    param: str | None
    code: str


class ErrorBody(TypedDict):
    error: ErrorDetail


@dataclass(frozen=True, slots=True)
class SpeechAsk:
    """A checked request: ``engine`` after the aliases, ``voice`` as sent (a catalog id or
    one of OpenAI's names), ``speed`` clamped into narrate's range."""

    text: str
    engine: str
    voice: str
    response_format: str
    speed: float
    model: str
    instructions: bool  # sent (and not applied: no engine of narrate takes a style prompt)
    # narrate's own field (the openai client's extra_body): the tenant's pronunciation
    # dictionaries, as a job's options name them; checked where the tenant is known
    lexicons: tuple[object, ...] = ()


def _text(body: JsonObject, name: str, required: bool = True) -> str | None:
    """Field ``name`` of the body (its wire format: any JSON object) as a string, checked."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise SpeechError(f"'{name}' must be a non-empty string", name, "invalid_value")
    return value


def read_speech(body: Any, max_chars: int) -> SpeechAsk:
    """The request body checked field by field; the first problem is a SpeechError naming
    the field, in OpenAI's words where OpenAI has them."""
    if not isinstance(body, dict):
        raise SpeechError("the request body must be a JSON object", None, "invalid_json")
    model = str(_text(body, "model"))
    engine = MODEL_ALIASES.get(model, model)
    if engine not in ENGINES:
        names = ", ".join([*ENGINES, *MODEL_ALIASES])
        raise SpeechError(f"model {model!r} is not one of: {names}", "model", "model_not_found")
    text = str(_text(body, "input"))
    if len(text) > max_chars:
        raise SpeechError(
            f"'input' is {len(text)} characters, over the limit of {max_chars} "
            "(NARRATE_SPEECH_MAX_CHARS); split it, or submit a job",
            "input",
            "string_above_max_length",
        )
    voice = str(_text(body, "voice"))
    fmt = _text(body, "response_format", required=False) or "mp3"
    if fmt not in MEDIA_TYPES:
        raise SpeechError(
            f"response_format {fmt!r} is not one of: {', '.join(MEDIA_TYPES)}",
            "response_format",
            "invalid_value",
        )
    speed = body.get("speed", 1.0)
    if isinstance(speed, bool) or not isinstance(speed, int | float):
        raise SpeechError("'speed' must be a number", "speed", "invalid_type")
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise SpeechError(
            f"'speed' is {speed:g}, outside {MIN_SPEED:g}..{MAX_SPEED:g}", "speed", "invalid_value"
        )
    instructions = _text(body, "instructions", required=False)
    lexicons = body.get("lexicons") or []
    if not isinstance(lexicons, list):
        raise SpeechError("'lexicons' must be a list of dictionary ids", "lexicons", "invalid_type")
    speed = min(max(float(speed), SLOWEST), FASTEST)
    return SpeechAsk(text, engine, voice, fmt, speed, model, bool(instructions), tuple(lexicons))


def sentences(text: str, limit: int = SENTENCE_CHARS) -> list[tuple[int, int]]:
    """Spans of ``text`` spoken one by one: sentences (a long one cut at its last clause
    mark or space within ``limit``), blank stretches left out."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        spans.extend(_cut(text, start, m.end(), limit))
        start = m.end()
    spans.extend(_cut(text, start, len(text), limit))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _cut(text: str, a: int, b: int, limit: int) -> list[tuple[int, int]]:
    out = []
    while b - a > limit:
        marks = [m.end() for m in _CLAUSE.finditer(text, a + 1, a + limit)]
        cut = marks[-1] if marks else a + limit
        out.append((a, cut))
        a = cut
    out.append((a, b))
    return out


@dataclass(frozen=True, slots=True)
class TimedWord:
    """A word of the input (character offsets) and when it is heard (seconds)."""

    start: int
    end: int
    start_s: float
    end_s: float


def character_times(text: str, words: list[TimedWord]) -> tuple[list[float], list[float]]:
    """Each character's start and end (ElevenLabs' ``character_start_times_seconds`` /
    ``..._end_times_seconds``): a word's time shared evenly among its characters; a
    character outside every word (a space, a mark) is a zero-length moment where the last
    word ended."""
    starts, ends = [0.0] * len(text), [0.0] * len(text)
    covered = [False] * len(text)
    for w in words:
        n = max(1, w.end - w.start)
        step = (w.end_s - w.start_s) / n
        for k, i in enumerate(range(w.start, min(w.end, len(text)))):
            starts[i] = round(w.start_s + k * step, 3)
            ends[i] = round(w.start_s + (k + 1) * step, 3)
            covered[i] = True
    last = 0.0
    for i in range(len(text)):
        if covered[i]:
            last = ends[i]
        else:
            starts[i] = ends[i] = last
    return starts, ends

"""One root exception; subclasses keep the offending value and survive pickling
(Celery moves them). Each kind has a stable ``code`` (docs/reference/errors.md), and knows where the
problem is: ``loc`` (the path in the job spec, as pydantic names it) and ``segment``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.domain.notices import Notice

Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a request, as the API's 422 lists it."""

    code: str
    message: str
    loc: Loc = ()


def field_loc(field: str) -> Loc:
    """A field named in words as a path: 'segment 2 seconds' -> ('segments', 1, 'seconds'),
    'speakers bob' -> ('speakers', 'bob'), 'style preset' -> ('style', 'preset')."""
    words, i = field.split(), 0
    out: list[str | int] = []
    while i < len(words):
        if i + 1 < len(words) and words[i + 1].isdigit():
            word = words[i]
            out += [word if word.endswith("s") else word + "s", int(words[i + 1]) - 1]
            i += 2
        else:
            out.append(words[i])
            i += 1
    return tuple(out)


def loc_words(loc: Loc) -> str:
    """A path in words: ('segments', 1, 'seconds') -> 'segment 2 seconds'."""
    parts: list[str] = []
    i = 0
    while i < len(loc):
        key = loc[i]
        nxt = loc[i + 1] if i + 1 < len(loc) else None
        if isinstance(key, str) and isinstance(nxt, int):
            singular = key[:-1] if key.endswith("s") else key
            parts.append(f"{singular} {nxt + 1}")
            i += 2
        else:
            parts.append(str(key))
            i += 1
    return " ".join(parts) or "spec"


def loc_segment(loc: Loc) -> int | None:
    """The 1-based segment a path is inside, if any."""
    if len(loc) >= 2 and loc[0] == "segments" and isinstance(loc[1], int):
        return loc[1] + 1
    return None


class NarrateError(Exception):
    """Root of every error narrate raises on purpose.

    Subclasses pass all their constructor arguments to ``super().__init__`` so that
    ``pickle`` (and so Celery's result backend) can rebuild them unchanged.
    """

    exit_code = 1
    code = "failed"
    loc: Loc = ()
    segment: int | None = None  # 1-based
    also: tuple[NarrateError, ...] = ()  # more problems found at the same time

    def __init__(self, message: str, *details: Any) -> None:
        super().__init__(message, *details)
        self.message = message

    def notice(self) -> Notice:
        """The error as a job record keeps it."""
        return Notice(code=self.code, message=self.message, segment=self.segment)

    def problems(self) -> list[Problem]:
        """Every problem this error reports (the API's 422 lists them all)."""
        first = Problem(self.code, self.message, self.loc)
        return [first, *(p for e in self.also for p in e.problems())]

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild from state rather than by calling __init__ again with the formatted args.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[NarrateError], args: tuple[Any, ...], state: dict[str, Any]) -> NarrateError:
    """``state``: the error's ``__dict__`` as pickle carried it (its wire format: pickle's
    state, any attribute a subclass set, Python objects such as the ``also`` errors, not
    JSON; typeshed's own type for an instance's ``__dict__``)."""
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class InputError(NarrateError):
    """Bad input from the user: a script, a spec, an option or a media file (exit 2 / HTTP 422)."""

    exit_code = 2
    code = "input.invalid"

    def __init__(self, message: str, *details: Any, loc: Loc = ()) -> None:
        super().__init__(message, *details)
        if loc:
            self.loc, self.segment = loc, loc_segment(loc)


class ScriptError(InputError):
    """A script or job spec that cannot be parsed or validated; ``field`` names where in
    words ("segment 2 seconds"), ``loc`` as a path (derived from ``field`` unless given);
    ``also`` holds further problems the same check found."""

    code = "script.invalid"

    def __init__(
        self,
        message: str,
        field: str | None = None,
        loc: Loc | None = None,
        also: tuple[ScriptError, ...] = (),
    ) -> None:
        super().__init__(f"{field}: {message}" if field else message, field)
        self.field = field
        self.loc = loc if loc is not None else field_loc(field or "")
        self.segment = loc_segment(self.loc)
        self.also = also


class PaceOverflowError(InputError):
    """A segment whose text needs a faster pace than ``fit.max_pace`` allows."""

    code = "pace.overflow"

    def __init__(
        self, segment: int, syllables: float, seconds: float, pace: float, limit: float
    ) -> None:
        super().__init__(
            f"segment {segment}: {syllables:g} syllables in {seconds:g} s needs "
            f"{pace:.2f} syllables/s, over the limit fit.max_pace={limit:g} "
            f"(shorten the text, allot more seconds, or set on_overflow to squeeze/extend)",
            segment,
            syllables,
            seconds,
            pace,
            limit,
        )
        self.segment, self.syllables, self.seconds = segment, syllables, seconds
        self.loc = ("segments", segment - 1)
        self.pace, self.limit = pace, limit


class VoiceError(InputError):
    """An unknown voice or engine; carries the near matches to suggest."""

    code = "voice.unknown"

    def __init__(
        self, voice: str, suggestions: tuple[str, ...] = (), field: str = "", why: str = ""
    ) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        where = f"{field}: " if field else ""
        what = why or f"unknown voice {voice!r}"
        super().__init__(f"{where}{what}{hint}", voice, suggestions, field, why)
        self.voice, self.suggestions, self.field = voice, suggestions, field
        self.loc = field_loc(field)
        self.segment = loc_segment(self.loc)


class MediaInputError(InputError):
    """A supplied media file that is not what it must be (not a video, too big, too long...)."""

    code = "media.invalid"

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(f"{message}" + (f": {path!r}" if path else ""), path)
        self.path = path


class TakeError(InputError):
    """A recorded take that cannot be used (no such segment, not audio, too long); the
    message starts with the part's name (``take-3: no segment 3``); a batch's takes are
    named by their files (``loc`` ``["take", "intro.take-3.wav"]``)."""

    code = "take.invalid"

    def __init__(self, message: str, part: str = "take", loc: Loc | None = None) -> None:
        super().__init__(message, part, loc=loc or (part,))


class SpeechMismatchError(NarrateError):
    """options on_mismatch fail: the speech check flagged segments (named in the message)."""

    code = "speech.mismatch"

    def __init__(self, message: str, segments: tuple[int, ...] = ()) -> None:
        super().__init__(message, segments)
        self.segments = segments
        self.segment = segments[0] if len(segments) == 1 else None


TAKE_MISMATCH = "take.mismatch"  # the warning: a take's alignment cost says another text


class MediaError(NarrateError):
    """An external program (ffmpeg, ffprobe, rubberband, espeak-ng) failed, timed out
    (``returncode`` None) or could not be started (127); carries argv and stderr's tail.
    The last two are the server's problem, whatever the file (``unavailable``)."""

    code = "media.failed"

    def __init__(self, argv: list[str], returncode: int | None, stderr_tail: str) -> None:
        what = "timed out" if returncode is None else f"exited {returncode}"
        super().__init__(
            f"{argv[0]} {what}: {stderr_tail.strip()[-500:]}", argv, returncode, stderr_tail
        )
        self.argv, self.returncode, self.stderr_tail = argv, returncode, stderr_tail
        if self.unavailable:
            self.code = "media.timeout" if returncode is None else "media.missing"

    @property
    def unavailable(self) -> bool:
        """The tool timed out or could not be run: no answer about the file at all."""
        return self.returncode is None or self.returncode == 127


class EngineError(NarrateError):
    """A TTS engine failed; ``retryable`` says whether another attempt may succeed."""

    code = "engine.failed"

    def __init__(self, engine: str, message: str, retryable: bool = False) -> None:
        super().__init__(f"{engine}: {message}", engine, message, retryable)
        self.engine, self.retryable = engine, retryable


class CanceledError(NarrateError):
    """The job was canceled while this step ran."""

    code = "canceled"


class AudioFormatError(NarrateError):
    """Audio bytes that are not the 16-bit PCM WAV narrate reads (a damaged cache entry, a
    tool that wrote something else)."""

    code = "audio.invalid"


class QueueUnavailable(NarrateError):
    """The broker or job store could not take the job; nothing of it was kept (HTTP 503)."""

    code = "queue.unavailable"


class StoreUnavailable(NarrateError):
    """The job store (or the fleet-wide state beside it: metrics, the edge guard) could not
    be reached, timed out or refused a write (HTTP 503 at the API; a worker hands the task's
    message back). The Redis adapters raise it for every Redis error."""

    code = "store.unavailable"


class QuotaExceeded(NarrateError):
    """A tenant is at one of its limits (HTTP 429 with Retry-After ``retry_after`` seconds);
    nothing of the submission was kept."""

    code = "quota.exceeded"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message, retry_after)
        self.retry_after = retry_after


class StorageUnavailable(NarrateError):
    """The object store could not be reached, or kept refusing, after the retries (HTTP 503
    at the API; a failed job in a worker)."""

    code = "storage.unavailable"


class IdempotencyConflict(NarrateError):
    """An Idempotency-Key reused with a different body (HTTP 409)."""

    code = "idempotency.conflict"

    def __init__(self, key: str) -> None:
        super().__init__(f"Idempotency-Key {key!r} was already used with a different body", key)
        self.key = key


class BodyTooLarge(NarrateError):
    """A request body over the limit (HTTP 413), raised as the bytes arrive."""

    code = "body.too_large"

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is over the limit of {limit} bytes", limit)
        self.limit = limit


class InsufficientStorage(NarrateError):
    """No room to keep an upload (a full disk or quota): HTTP 507, nothing of it kept."""

    code = "storage.full"


class BodyTimeout(NarrateError):
    """A request body that stopped arriving for longer than the idle limit (HTTP 408)."""

    code = "upload.stalled"

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request body stopped arriving for {seconds:g} s", seconds)
        self.seconds = seconds


MAX_PROBLEMS = 20  # a 422 lists at most this many


def validation_error(errors: list[Any]) -> ScriptError:
    """pydantic's errors (``ValidationError.errors()``) in the user's words: the first as
    the error, the others, one per field, in its ``also``."""
    found: dict[Loc, str] = {}
    for error in errors[:MAX_PROBLEMS]:
        msg = str(error["msg"]).removeprefix("Value error, ")
        got = error.get("input")
        shown = "" if isinstance(got, dict | list) or got is None else f" (got {got!r:.60})"
        found.setdefault(tuple(error["loc"]), msg + shown)
    (loc, msg), *rest = found.items()
    also = tuple(ScriptError(m, loc_words(at), at) for at, m in rest)
    return ScriptError(msg, loc_words(loc), loc, also)

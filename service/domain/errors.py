"""One root exception; subclasses keep the offending value and survive pickling
(Celery moves them)."""

from __future__ import annotations

from typing import Any


class NarrateError(Exception):
    """Root of every error narrate raises on purpose.

    Subclasses pass all their constructor arguments to ``super().__init__`` so that
    ``pickle`` (and so Celery's result backend) can rebuild them unchanged.
    """

    exit_code = 1

    def __init__(self, message: str, *details: Any) -> None:
        super().__init__(message, *details)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild from state rather than by calling __init__ again with the formatted args.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[NarrateError], args: tuple[Any, ...], state: dict[str, Any]) -> NarrateError:
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class InputError(NarrateError):
    """Bad input from the user: a script, a spec, an option or a media file (exit 2 / HTTP 422)."""

    exit_code = 2


class ScriptError(InputError):
    """A script or job spec that cannot be parsed or validated; ``field`` names where."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(f"{field}: {message}" if field else message, field)
        self.field = field


class PaceOverflowError(InputError):
    """A segment whose text needs a faster pace than ``fit.max_pace`` allows."""

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
        self.pace, self.limit = pace, limit


class VoiceError(InputError):
    """An unknown voice or engine; carries the near matches to suggest."""

    def __init__(
        self, voice: str, suggestions: tuple[str, ...] = (), field: str = "", why: str = ""
    ) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        where = f"{field}: " if field else ""
        what = why or f"unknown voice {voice!r}"
        super().__init__(f"{where}{what}{hint}", voice, suggestions, field, why)
        self.voice, self.suggestions, self.field = voice, suggestions, field


class MediaInputError(InputError):
    """A supplied media file that is not what it must be (not a video, too big, too long...)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(f"{message}" + (f": {path!r}" if path else ""), path)
        self.path = path


class MediaError(NarrateError):
    """An external program (ffmpeg, ffprobe, rubberband, espeak-ng) failed, timed out
    (``returncode`` None) or could not be started (127); carries argv and stderr's tail."""

    def __init__(self, argv: list[str], returncode: int | None, stderr_tail: str) -> None:
        what = "timed out" if returncode is None else f"exited {returncode}"
        super().__init__(
            f"{argv[0]} {what}: {stderr_tail.strip()[-500:]}", argv, returncode, stderr_tail
        )
        self.argv, self.returncode, self.stderr_tail = argv, returncode, stderr_tail


class EngineError(NarrateError):
    """A TTS engine failed; ``retryable`` says whether another attempt may succeed."""

    def __init__(self, engine: str, message: str, retryable: bool = False) -> None:
        super().__init__(f"{engine}: {message}", engine, message, retryable)
        self.engine, self.retryable = engine, retryable


class CanceledError(NarrateError):
    """The job was canceled while this step ran."""


class AudioFormatError(NarrateError):
    """Audio bytes that are not the 16-bit PCM WAV narrate reads (a damaged cache entry, a
    tool that wrote something else)."""


class QueueUnavailable(NarrateError):
    """The broker or job store could not take the job; nothing of it was kept (HTTP 503)."""


class StorageUnavailable(NarrateError):
    """The object store could not be reached, or kept refusing, after the retries (HTTP 503
    at the API; a failed job in a worker)."""


class IdempotencyConflict(NarrateError):
    """An Idempotency-Key reused with a different body (HTTP 409)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"Idempotency-Key {key!r} was already used with a different body", key)
        self.key = key


class BodyTooLarge(NarrateError):
    """A request body over the limit (HTTP 413), raised as the bytes arrive."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is over the limit of {limit} bytes", limit)
        self.limit = limit


class InsufficientStorage(NarrateError):
    """No room to keep an upload (a full disk or quota): HTTP 507, nothing of it kept."""


class BodyTimeout(NarrateError):
    """A request body that stopped arriving for longer than the idle limit (HTTP 408)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request body stopped arriving for {seconds:g} s", seconds)
        self.seconds = seconds

"""The job spec's option groups (fitting, subtitles) and its looks beyond a style: the
hook title and a segment's authored emphasis (see service/domain/emphasis.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, field_validator

from service.domain.emphasis import MARK, MAX_EMPHASIS, strip_marks
from service.domain.errors import ScriptError
from service.domain.fields import Model as _Model
from service.domain.fields import clean
from service.domain.options import OnOverflow
from service.domain.text import width, wrap

MAX_HOOK = 60  # characters of a hook title: two large lines at most


class FitOptions(_Model):
    """How each segment is fitted to its allotted seconds."""

    max_pace: float | None = Field(
        None, gt=0, le=20, description="syllables/s; default 7.5 for zh, 6.0 for en"
    )
    on_overflow: OnOverflow = "fail"
    max_stretch: float = Field(
        0.25,
        ge=0,
        le=1,
        description="largest residual time-stretch after native rate, as a fraction",
    )
    max_slowdown: float = Field(
        0.92, gt=0.5, le=1, description="slowest rate used to fill a slot when speech is short"
    )
    gap: float = Field(0.25, ge=0, le=2, description="seconds of silence kept at a segment's end")


class SubtitleOptions(_Model):
    max_chars_per_line: int | None = Field(None, ge=8, le=80)
    max_lines: int = Field(2, ge=1, le=3)
    min_duration: float = Field(5 / 6, ge=0.2, le=5)
    max_duration: float = Field(7.0, ge=1, le=20)
    fps: float = Field(30.0, gt=0, le=120)
    min_gap_frames: int = Field(2, ge=0, le=30)
    max_words_per_cue: int | None = Field(
        None,
        ge=2,
        le=4,
        description="short pages of at most this many words a cue (short-form English; "
        "the English line rules kept: no page ends on an article, numbers stay with units)",
    )


class Hook(_Model):
    """A hook title: drawn large over the first ``seconds`` on its own layer (short videos
    open on one), clear of the narration and the qualifiers."""

    text: str = Field(description="the title, at most two lines at the hook's size")
    seconds: float = Field(3.0, gt=0, le=60, description="how long it shows from the start")

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        return clean(" ".join(v.split()), MAX_HOOK)


EMPHASIS_FIELD: Any = Field(
    default_factory=list,
    max_length=MAX_EMPHASIS,
    description="words drawn in the style's emphasis colour and size: each item a string "
    "(every occurrence of it in the text) or [start, end] (a span of character offsets "
    "into the text); **word** in the text adds one",
)


def emphasis_items(data: Any) -> Any:
    """A segment's data with the ``**`` marks of its text moved into its ``emphasis`` (as
    spans of the text without them). Unclosed marks are left for the text's own check."""
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return data
    raw: str = data["text"]
    if MARK not in raw:
        return data
    try:
        plain, spans = strip_marks(raw)
    except ValueError:
        return data
    shift = len(plain) - len(plain.lstrip())  # the text is stripped: the spans move with it
    plain = plain.strip()
    given = data.get("emphasis") or []
    if not isinstance(given, list):
        return data
    found = [[a - shift, b - shift] for a, b in spans]
    return {**data, "text": plain, "emphasis": [*given, *found]}


HOOK_WIDTH = 0.6  # a hook line holds this share of a narration line (its text is larger)


def check_looks(segments: Sequence[Any], hook: Hook | None, language: str, line_chars: int) -> None:
    """What the looks ask of the whole spec: each emphasised keyword fits a line (it is kept
    whole), and the hook fits two lines and ends within the narration. ScriptError names the
    segment and field."""
    for i, seg in enumerate(segments, 1):
        for a, b in seg.emphasis_spans:
            word = seg.text[a:b]
            if width(word, language) > line_chars:
                raise ScriptError(
                    f"{word!r:.60} is {width(word, language):g} wide, over a line's "
                    f"{line_chars}: a keyword is kept on one line; mark a shorter one",
                    f"segment {i} emphasis",
                )
    if hook is None:
        return
    chars = max(4, round(line_chars * HOOK_WIDTH))
    if wrap(hook.text, chars, 2, language=language) is None:
        raise ScriptError(
            f"{hook.text!r:.60} does not fit two lines of {chars} at the hook's size; shorten it",
            "hook text",
        )
    length = narration_length(segments)
    if hook.seconds > length:
        raise ScriptError(
            f"{hook.seconds:g} s is longer than the narration ({length:g} s)", "hook seconds"
        )


def narration_length(segments: Sequence[Any]) -> float:
    """Where the last segment's slot ends, in seconds (a segment starts at its ``start`` or
    where the one before ends, whichever is later)."""
    at = 0.0
    for seg in segments:
        at = max(at, seg.start or 0.0) + seg.seconds
    return at

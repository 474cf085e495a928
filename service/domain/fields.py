"""Rules every text and delivery field of a job spec follows (pure; used by spec.py and
style.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

# Control characters (bar tab/newline), bidi marks and overrides, and NUL break subtitle files
# and players, and can make a cue display other text than it holds.
# Lone surrogates (JSON can carry \ud800) are not text at all: no UTF-8 file can hold them.
FORBIDDEN = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)

# edge-style delivery strings: a signed percentage of the voice's default rate/volume, a
# signed pitch shift in Hz. Bounded so every engine can honour them.
_RATE = re.compile(r"^[+-](\d{1,3})%$")
MAX_RATE_PERCENT = 100  # -100 % would be silence; edge takes -50 %..+100 %
MIN_RATE_PERCENT = 50


# What readers take for the end of a line: CRLF, CR, LF, NEL and the Unicode line and
# paragraph separators (str.splitlines, and so pysubs2 and libass, split on the last three).
_BREAK = r"(?:\r\n|[\n\r\x85\u2028\u2029])"
_BREAKS = re.compile(rf"[ \t]*{_BREAK}(?:[ \t]*{_BREAK})*[ \t]*")  # a run, with its blanks


def one_line(value: str) -> str:
    """A one-line field (a qualifier: one item of the risk card): every line break, of any
    kind, folded into one space. Folded rather than refused: the words are all kept, and a
    break pasted from an editor is layout, not content."""
    return _BREAKS.sub(" ", value)


def lines_of(value: str) -> str:
    """A field whose lines are items (an overlay's text): every kind of line break as LF."""
    return _BREAKS.sub("\n", value)


def matching(pattern: re.Pattern[str], message: str) -> Callable[[str | None], str | None]:
    """The validator of an optional name or id field (a voice, a speaker, a font, a preset):
    unset, or a string ``pattern`` matches from its start (else ``message``)."""

    def check(value: str | None) -> str | None:
        if value is not None and not pattern.match(value):
            raise ValueError(message)
        return value

    return check


def plain(value: str, limit: int) -> str:
    """An optional short field (title, shot notes): may be empty, same character rules."""
    if len(value) > limit:
        raise ValueError(f"is {len(value)} characters, over the limit of {limit}")
    bad = FORBIDDEN.search(value)
    if bad:
        raise ValueError(f"contains the control character {bad.group()!r} at {bad.start()}")
    return value


_C1 = re.compile(r"[\x80-\x9f]")  # C1 controls: NEL (U+0085) ends a line for many readers


def single(value: str, limit: int) -> str:
    """A one-line header field (a title: the EDL's ``TITLE:`` line, the FCP sequence's
    name): ``plain``, and no line break of any kind nor C1 control. Refused rather than
    folded: a break in a title is a forged header, not layout."""
    value = plain(value, limit)
    bad = re.search(_BREAK, value)
    if bad:
        raise ValueError(f"must be one line: a line break {bad.group()!r} at {bad.start()}")
    bad = _C1.search(value)
    if bad:
        raise ValueError(f"contains the control character {bad.group()!r} at {bad.start()}")
    return value


def header_text(value: str) -> str:
    """What a one-line header of a written file may hold (the EDL writer's last guard):
    every line break folded to a space, every other control or bidi character dropped."""
    return _C1.sub("", FORBIDDEN.sub("", one_line(value))).replace("\t", " ")


def clean(value: str, limit: int) -> str:
    """A required text field: stripped, not empty, and ``plain``."""
    value = value.strip()
    if not value:
        raise ValueError("must not be empty")
    return plain(value, limit)


def paragraph(value: str | None, limit: int) -> str | None:
    """An optional prose field (a translation): its whitespace folded to single spaces, as
    the subtitle layout breaks its lines; None when empty."""
    folded = " ".join((value or "").split())
    return clean(folded, limit) if folded else None


class Model(BaseModel):
    """Every spec model: unknown fields refused, values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# A speaker's name (a segment names it) and a voice id of the catalog (any engine).
SPEAKER_NAME = re.compile(r"^[^\s=;；·・•\]\[:：,，]{1,40}$")
VOICE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,79}$")


def check_speakers(v: dict[str, str]) -> dict[str, str]:
    """A speakers table (name -> voice id), a job spec's or a render's."""
    for name, voice in v.items():
        if not SPEAKER_NAME.match(name):
            raise ValueError(
                f"speaker name {name!r} must be 1-40 characters without spaces or separators"
            )
        if not VOICE_ID.match(voice):
            raise ValueError(f"speaker {name!r}: {voice!r} is not a voice id")
    return v


def rate_multiplier(rate: str | None) -> float:
    """'+10%' -> 1.1: the native-rate fit starts here."""
    return 1.0 + int(rate.rstrip("%")) / 100 if rate else 1.0


def check_rate(v: str | None, what: str) -> str | None:
    if v is None:
        return None
    m = _RATE.match(v.strip())
    if not m:
        raise ValueError(f"must be a signed percentage such as '+10%' or '-5%' ({what})")
    value = int(v.strip().rstrip("%"))
    low = -MIN_RATE_PERCENT if what == "rate" else -100
    if not low <= value <= MAX_RATE_PERCENT:
        raise ValueError(f"must be between {low:+d}% and +{MAX_RATE_PERCENT}% ({what})")
    return f"{value:+d}%"


def loc_path(loc: tuple[str | int, ...]) -> str:
    """A path as a field reference: ('masters', 0, 'engine') -> 'masters[0].engine'."""
    out = ""
    for key in loc:
        out += f"[{key}]" if isinstance(key, int) else f"{'.' if out else ''}{key}"
    return out

"""Recorded takes in place of synthesis (pure): which upload parts are takes, and the plan's
record of them. ``take-3`` is segment 3's own recording; ``take`` is one recording of the
whole script, split among the segments by aligning it with their texts."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from service.domain.errors import TakeError

TAKE_PART = re.compile(r"take(?:-([1-9][0-9]{0,3}))?")
WHOLE = "take"


class Take(BaseModel):
    """Where a segment's voice comes from instead of a synthesis: the stored input ``input``
    (``take-3``, or ``take`` for the whole script's recording, of ``length_ms``)."""

    model_config = ConfigDict(frozen=True)

    input: str
    length_ms: int

    @property
    def whole(self) -> bool:
        return self.input == WHOLE


def is_take(name: str) -> bool:
    """A multipart part or stored input name that is a take."""
    return TAKE_PART.fullmatch(name) is not None


def take_segment(name: str) -> int | None:
    """The 1-based segment a ``take-N`` part is for (None for the whole-script ``take``)."""
    m = TAKE_PART.fullmatch(name)
    if m is None:
        raise TakeError(f"{name}: not a take part (take, or take-N for segment N)", name)
    return int(m.group(1)) if m.group(1) else None


def take_flags(values: list[str]) -> dict[str, str]:
    """``--take N=FILE`` (segment N's take) or ``--take FILE`` (the whole script's) as part
    names -> files."""
    out: dict[str, str] = {}
    for value in values:
        number, sep, path = value.partition("=")
        if sep and number.strip().isdigit():
            out[f"take-{int(number)}"] = path
        else:
            out[WHOLE] = value
    return out


def kept_takes(takes: list[Take | None], old: list[str], new: list[str]) -> list[str]:
    """The parent's takes a re-render keeps (their input names): a segment's own where the
    segment's text is unchanged, the whole script's where no segment's text changed."""
    if not takes:
        return []
    first = takes[0]
    if first is not None and first.whole:
        return [WHOLE] if old == new else []
    return [
        t.input
        for i, t in enumerate(takes)
        if t is not None and i < len(old) and i < len(new) and old[i] == new[i]
    ]


# A take runs at most this many times its segment's seconds, plus the slack (a slow read, a
# pause before it), within NARRATE_MAX_TAKE_SECONDS. The door decodes a take up to that
# length: what a job's takes cost it follows its script, not max_takes x max_take_seconds
# (100 takes of 10 minutes kept an API thread 45 s on a request).
TAKE_SLACK_FACTOR = 4.0
TAKE_SLACK_SECONDS = 30.0


def take_limit(name: str, seconds: Sequence[float], ceiling: float) -> tuple[float, str]:
    """How long take ``name`` may run and, when its script sets that (not ``ceiling``), what
    it was allotted, in the user's words ("segment 2's 3 s")."""
    number = take_segment(name)
    if number is None:
        allotted, whose = sum(seconds), "the script's"
    else:
        allotted, whose = seconds[number - 1], f"segment {number}'s"
    bound = TAKE_SLACK_FACTOR * allotted + TAKE_SLACK_SECONDS
    if bound >= ceiling:
        return ceiling, ""
    return bound, f"{whose} {allotted:g} s"


def plan_takes(segments: int, lengths: dict[str, int]) -> list[Take | None]:
    """Each segment's take (None: synthesised), from the takes' names and lengths (ms).
    A whole-script take is every segment's; it cannot come with per-segment takes."""
    if not lengths:
        return []
    if WHOLE in lengths:
        if len(lengths) > 1:
            others = ", ".join(sorted(n for n in lengths if n != WHOLE))
            raise TakeError(
                f"take: one take of the whole script, or takes per segment, not both ({others})",
                WHOLE,
            )
        return [Take(input=WHOLE, length_ms=lengths[WHOLE])] * segments
    out: list[Take | None] = [None] * segments
    for name in sorted(lengths, key=lambda n: take_segment(n) or 0):
        number = take_segment(name) or 0
        if not 1 <= number <= segments:
            raise TakeError(f"{name}: no segment {number} (the script has {segments})", name)
        out[number - 1] = Take(input=name, length_ms=lengths[name])
    return out

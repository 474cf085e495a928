"""Warnings and errors as data: a code a program reads, the message a person reads, and the
segment it concerns. A job's warnings are said once each: a segment records what happened to
it, the job says it once for every segment it happened to (pure)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

_FELL_BACK = "; fell back to "


class Notice(BaseModel):
    """A warning, or why a job ended badly. ``code`` is stable (docs/reference/errors.md
    lists them); ``message`` is the sentence shown to people; ``segment`` is 1-based, None
    for the job."""

    model_config = ConfigDict(frozen=True, title="notice")

    code: str
    message: str
    segment: int | None = None


def warning(code: str, message: str, segment: int | None = None) -> Notice:
    return Notice(code=code, message=message, segment=segment)


def fell_back(reason: str, engine: str, voice: str, segment: int | None = None) -> Notice:
    """A segment's warning that its engine failed and another voice spoke it."""
    return warning("engine.fallback", f"{reason}{_FELL_BACK}{engine} voice {voice}", segment)


def segment_ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 5] -> 'segments 1-3, 5'; [4] -> 'segment 4' (1-based numbers, ascending)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    spans = [f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
    return f"segment{'s' if len(numbers) > 1 else ''} {', '.join(spans)}"


def job_warnings(per_segment: list[tuple[int, list[Notice]]]) -> list[Notice]:
    """The job's warnings from each segment's (index, warnings), in the order first met:
    one for each distinct warning, a fallback naming the segments it spoke (the offline
    case: every segment's edge call fails alike, and the job says so once; its ``segment``
    is that segment, or None when it names several)."""
    where: dict[tuple[str, str], tuple[Notice, list[int]]] = {}
    for index, warnings in per_segment:
        for w in warnings:
            numbers = where.setdefault((w.code, w.message), (w, []))[1]
            if index + 1 not in numbers:
                numbers.append(index + 1)
    out = []
    for first, numbers in where.values():
        one = numbers[0] if len(numbers) == 1 else None
        reason, sep, rest = first.message.partition(_FELL_BACK)
        if sep:
            said = f"{reason}; {segment_ranges(sorted(numbers))}{sep.removeprefix(';')}{rest}"
            out.append(warning(first.code, said, one))
        else:  # names its segment, or is the same for all
            out.append(
                first if first.segment is not None else warning(first.code, first.message, one)
            )
    return out

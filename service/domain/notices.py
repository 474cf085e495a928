"""A job's warnings, said once each: a segment records what happened to it, the job says it
once for every segment it happened to (pure)."""

from __future__ import annotations

_FELL_BACK = "; fell back to "


def fell_back(reason: str, engine: str, voice: str) -> str:
    """A segment's warning that its engine failed and another voice spoke it."""
    return f"{reason}{_FELL_BACK}{engine} voice {voice}"


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


def job_warnings(per_segment: list[tuple[int, list[str]]]) -> list[str]:
    """The job's warnings from each segment's (index, warnings), in the order first met:
    one line for each distinct warning, a fallback naming the segments it spoke (the
    offline case: every segment's edge call fails alike, and the job says so once)."""
    where: dict[str, list[int]] = {}
    for index, warnings in per_segment:
        for w in warnings:
            numbers = where.setdefault(w, [])
            if index + 1 not in numbers:
                numbers.append(index + 1)
    out = []
    for w, numbers in where.items():
        reason, sep, rest = w.partition(_FELL_BACK)
        if sep:
            out.append(f"{reason}; {segment_ranges(sorted(numbers))}{sep.removeprefix(';')}{rest}")
        else:
            out.append(w)  # names its segment, or is the same for all
    return out

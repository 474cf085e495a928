"""Where each segment and overlay sits, and how each segment is fitted. Integer milliseconds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from service.domain.errors import PaceOverflowError, ScriptError
from service.domain.notices import Notice, warning
from service.domain.spec import FitOptions, JobSpec, Shot
from service.domain.text import syllables
from service.domain.units import s_to_ms

QUALIFIER_MARKERS = ("限定语", "qualifier")


@dataclass(frozen=True, slots=True)
class PaceCheck:
    index: int  # 1-based, as users count segments
    syllables: float
    allotted_ms: int
    pace: float
    limit: float

    @property
    def overflows(self) -> bool:
        return self.pace > self.limit

    @property
    def extended_ms(self) -> int:
        """The slot length at which this text is spoken at the pace limit."""
        return max(self.allotted_ms, s_to_ms(self.syllables / self.limit) + 1)


# Every segment task of a job plans the job again (in the same worker process): counting
# each text's syllables once per process keeps a job's planning linear in its size.
@lru_cache(maxsize=4096)
def _syllables(text: str, language: str) -> float:
    return syllables(text, language)


def pace_check(spec: JobSpec, index: int) -> PaceCheck:
    """Segment ``index`` (0-based) against the pace limit; depends on that segment alone."""
    seg = spec.segments[index]
    syl = _syllables(seg.text, spec.language)
    return PaceCheck(index + 1, syl, s_to_ms(seg.seconds), syl / seg.seconds, spec.max_pace)


def pace_checks(spec: JobSpec) -> list[PaceCheck]:
    return [pace_check(spec, i) for i in range(len(spec.segments))]


def check_pace(spec: JobSpec) -> list[Notice]:
    """Apply ``fit.on_overflow`` to every segment; raise for ``fail``, else return warnings."""
    warnings: list[Notice] = []
    for chk in pace_checks(spec):
        if not chk.overflows:
            continue
        if spec.fit.on_overflow == "fail":
            raise PaceOverflowError(
                chk.index, chk.syllables, chk.allotted_ms / 1000, chk.pace, chk.limit
            )
        if spec.fit.on_overflow == "squeeze":
            said = f"squeezed to {chk.pace:.2f} syllables/s, over the limit {chk.limit:g}"
            warnings.append(warning("pace.squeezed", f"segment {chk.index}: {said}", chk.index))
        else:
            said = (
                f"segment {chk.index}: extended from {chk.allotted_ms / 1000:g} s to "
                f"{chk.extended_ms / 1000:g} s to stay within {chk.limit:g} syllables/s; "
                f"later segments move back"
            )
            warnings.append(warning("pace.extended", said, chk.index))
    return warnings


def _slot(chk: PaceCheck, policy: str) -> int:
    return chk.extended_ms if chk.overflows and policy == "extend" else chk.allotted_ms


def slot_ms(spec: JobSpec, index: int) -> int:
    """The length segment ``index`` (0-based) will occupy, after the overflow policy. Costs
    one segment's work, so a job's slots cost time linear in its size."""
    return _slot(pace_check(spec, index), spec.fit.on_overflow)


def slots_ms(spec: JobSpec) -> list[int]:
    """Every segment's slot length, in order."""
    return [_slot(chk, spec.fit.on_overflow) for chk in pace_checks(spec)]


@dataclass(frozen=True, slots=True)
class Slot:
    start_ms: int
    end_ms: int


def place_segments(spec: JobSpec, lengths_ms: list[int]) -> list[Slot]:
    """Back to back from 0 unless a segment gives its ``start``; overlaps are errors, except
    that a segment extended by the overflow policy pushes later ones back."""
    slots: list[Slot] = []
    cursor = 0
    pushed = False  # has an earlier segment run longer than allotted?
    for i, (seg, length) in enumerate(zip(spec.segments, lengths_ms, strict=True)):
        start = cursor
        if seg.start is not None:
            wanted = s_to_ms(seg.start)
            if wanted < cursor and not pushed:
                raise ScriptError(
                    f"start {seg.start:g} s overlaps the previous segment, which ends at "
                    f"{cursor / 1000:g} s",
                    f"segment {i + 1}",
                )
            start = max(wanted, cursor)
        slots.append(Slot(start, start + length))
        cursor = start + length
        pushed = pushed or length > s_to_ms(seg.seconds)
    return slots


@dataclass(frozen=True, slots=True)
class TimedOverlay:
    text: str
    start_ms: int
    end_ms: int


def _qualifier_shot(spec: JobSpec) -> Shot | None:
    """The shot whose elements mention the qualifiers: they share its window."""
    return next(
        (
            s
            for s in spec.shots
            if s.end > s.start
            and any(m in f"{s.elements} {s.name}".lower() for m in QUALIFIER_MARKERS)
        ),
        None,
    )


def place_overlays(spec: JobSpec, slots: list[Slot]) -> list[TimedOverlay]:
    """Explicit overlays keep their times; qualifiers share the window of the shot whose
    elements mention them evenly, or else the last segment's slot: one after another, or
    accumulating (each window shows every qualifier so far, so none overlap in time)."""
    out = [TimedOverlay(o.text, s_to_ms(o.start), s_to_ms(o.end)) for o in spec.overlays]
    if spec.qualifiers:
        shot = _qualifier_shot(spec)
        a, b = (
            (s_to_ms(shot.start), s_to_ms(shot.end))
            if shot
            else (slots[-1].start_ms, slots[-1].end_ms)
        )
        n = len(spec.qualifiers)
        for k, text in enumerate(spec.qualifiers):
            start, end = a + (b - a) * k // n, a + (b - a) * (k + 1) // n
            if spec.qualifier_display == "accumulate":  # all so far, one a line, newest last
                text = "\n".join(spec.qualifiers[: k + 1])
            out.append(TimedOverlay(text, start, end))
    return sorted(out, key=lambda o: (o.start_ms, o.end_ms))


def check_timeline(spec: JobSpec, limit_s: float) -> list[Slot]:
    """The segments' slots, once the whole timeline (segments after the overflow policy,
    overlays, the qualifiers' shot) is known to end by ``limit_s``; else an error naming the
    first field that runs past it. Finalize's time grows with the timeline: bound it here."""
    limit = s_to_ms(limit_s)

    def past(end_ms: int, field: str) -> ScriptError:
        return ScriptError(
            f"ends at {end_ms / 1000:g} s, past the timeline limit of {limit_s:g} s "
            "(NARRATE_MAX_TIMELINE)",
            field,
        )

    slots = place_segments(spec, slots_ms(spec))
    for i, (seg, slot) in enumerate(zip(spec.segments, slots, strict=True), 1):
        if slot.end_ms > limit:
            raise past(slot.end_ms, f"segment {i} {'seconds' if seg.start is None else 'start'}")
    for i, o in enumerate(spec.overlays, 1):
        if s_to_ms(o.end) > limit:
            raise past(s_to_ms(o.end), f"overlay {i} end")
    shot = _qualifier_shot(spec) if spec.qualifiers else None
    if shot is not None and s_to_ms(shot.end) > limit:
        raise past(
            s_to_ms(shot.end), f"shot {spec.shots.index(shot) + 1} end (the qualifiers' window)"
        )
    return slots


def speech_target_ms(slot: int, fit: FitOptions) -> int:
    gap = min(s_to_ms(fit.gap), slot // 10)
    return slot - gap


RATE_TOLERANCE = 0.03  # native rate is good enough up to 3 % under the target


def next_rate(
    tried: list[tuple[float, int]],
    target_ms: int,
    fit: FitOptions,
    min_rate: float,
    max_rate: float,
) -> float | None:
    """The native rate to try next, from the (rate, speech ms) pairs tried so far; None when
    the last lands in the band up to 3 % under the target, or no better rate can be had.

    The search aims at the middle of that band: speech a little short is padded with
    silence for free, while speech a little long costs a rubberband R3 pass (slower than
    another espeak-ng pass, and a stretch however small).

    Duration is roughly rate**k with k near -1 (espeak-ng's Mandarin is far from it), so
    with two points the exponent is measured (a secant in log-log space)."""
    rate, speech = tried[-1]
    if speech <= 0 or (1 - RATE_TOLERANCE) * target_ms <= speech <= target_ms:
        return None
    aim = target_ms * (1 - RATE_TOLERANCE / 2)
    k = -1.0
    if len(tried) >= 2:
        (r0, d0), (r1, d1) = tried[-2], tried[-1]
        if abs(r1 - r0) > 1e-3 and d0 > 0 and d1 > 0 and d0 != d1:
            k = min(-0.2, max(-2.0, math.log(d1 / d0) / math.log(r1 / r0)))
    wanted = rate * (aim / speech) ** (1 / k)
    floor = max(min_rate, fit.max_slowdown)  # short text keeps a natural pace and pads
    wanted = min(max(wanted, floor), max_rate)
    return None if abs(wanted - rate) < 0.005 else wanted


@dataclass(frozen=True, slots=True)
class Residual:
    ratio: float  # output/input duration for the time-stretch; 1.0 means none
    warnings: list[Notice] = field(default_factory=list)


def plan_residual(
    index: int, speech_ms: int, target_ms: int, fit: FitOptions, squeeze: bool
) -> Residual:
    """After native rate: stretch only when speech is still too long for the slot."""
    if speech_ms <= target_ms:
        return Residual(1.0)
    ratio = target_ms / speech_ms
    warnings: list[Notice] = []
    if 1 / ratio - 1 > fit.max_stretch:
        if not squeeze:
            raise ScriptError(
                f"needs a residual time-stretch of {1 / ratio:.2f}x after the engine's fastest "
                f"rate, over fit.max_stretch={fit.max_stretch:g}",
                f"segment {index + 1}",
            )
        said = f"segment {index + 1}: time-stretched {1 / ratio:.2f}x, over fit.max_stretch"
        warnings.append(warning("fit.stretched", said, index + 1))
    return Residual(ratio, warnings)

"""A recorded take in place of synthesis: the segment's text is synthesised by the offline
engine (the reference), warped onto the take (service/audio/align.py), and the reference's
phrase boundaries are carried into the take's time. The take is then fitted like speech
(stretch within bounds, else the overflow policy) and its subtitles timed from those
boundaries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from service import audio as dsp
from service.audio.align import Alignment, align
from service.domain.notices import Notice, warning
from service.domain.script_match import Share
from service.domain.units import ms_to_samples, samples_to_ms
from service.ports import Boundary, Speech

if TYPE_CHECKING:
    from service.pipeline.results import JobPlan

REFERENCE_ENGINE = "espeak"  # offline, always installed: the reference every take is read against
# The mean DTW distance (per normalised MFCC, against frames paired at random: align.py) over
# which a take is said not to match its text. bench/takes.py: espeak readings of the same text
# in another voice measure 0.50-0.62, of other texts 0.59-0.78; the neural voice reading the
# right text 0.59-0.70, other texts 0.66-0.82. The ranges overlap: the threshold is set at
# the top of the right readings measured, so only a clearly other text is flagged by it.
MISMATCH_COST = 0.7
# The round trip (align.py: reference -> take -> reference, mean error over speech) over which
# a take is said not to match its text. bench/takes.py: readings of the text measure 20-28 ms
# (espeak +f3) and 61-208 ms (the neural voice); other texts 60 ms to no path back (median
# 526-565 ms). Either test flags 15 of 17 and 10 of 10 other texts there, and no right one.
MISMATCH_TRIP_MS = 250.0
# Script matching (listen.Listener.split_take): a plan and a trimmed take -> the segments'
# shares, or None where the recogniser cannot split it.
Matcher = Callable[["JobPlan", dsp.Audio, int], list[Share] | None]
TAKE_LEVEL_DBFS = -20.0  # the take's speech is brought to this RMS before the fit


@dataclass
class Aligned:
    """A take's speech (silence trimmed) with the reference's boundaries in its time."""

    speech: Speech
    cost: float
    round_trip_ms: float = 0.0  # align.py: how far the paths there and back disagree
    alignment: Alignment | None = None


class TakeShare(TypedDict):
    """One segment's share of a whole-script take as the split keeps it (take-split.json, a
    work file the job's segment steps read): its span (ms into the trimmed take), its
    boundaries as [start, end, start_ms, end_ms] rows (ms into that span), its cost."""

    span: list[int]
    boundaries: list[list[int]]
    cost: float
    trip: float


def speech_span(take: dsp.Audio, frame: int = 256) -> tuple[int, int]:
    """Where the take's speech starts and ends (samples): frames under -50 dBFS, or within
    8 dB of its noise floor (its quietest tenth), are not speech; the threshold stays 25 dB
    under its loud frames, so a take with no pause in it keeps its soft ends."""
    n = len(take) // frame
    if n == 0:
        return dsp.speech_bounds(take)
    rms = np.sqrt(np.mean(take[: n * frame].astype(np.float64).reshape(n, frame) ** 2, axis=1))
    level = 20 * np.log10(rms + 1e-12)
    noise, peak = np.percentile(level, [10, 95])
    loud = np.flatnonzero(level > max(-50.0, min(float(noise) + 8, float(peak) - 25)))
    if len(loud) == 0:
        return 0, 0
    return int(loud[0]) * frame, min(len(take), (int(loud[-1]) + 1) * frame)


def trimmed(take: dsp.Audio) -> dsp.Audio:
    """The take without its silent ends (speech_span)."""
    a, b = speech_span(take)
    return take[a:b]


def carried(reference: Speech, take: dsp.Audio, rate: int) -> Aligned:
    """The reference's boundaries mapped into ``take`` (mono float at ``rate``; its silent
    ends trimmed), kept in order and inside the take."""
    take = trimmed(take)
    found = align(reference.audio, reference.rate, take, rate)
    length = samples_to_ms(len(take), rate) if len(take) else 0
    out: list[Boundary] = []
    floor = 0
    for w in reference.boundaries:
        start = min(max(found.to_take_ms(w.start_ms, "start"), floor), length)
        end = min(max(found.to_take_ms(w.end_ms, "end"), start + 1), length)
        out.append(Boundary(w.start, w.end, start, end))
        floor = start
    return Aligned(Speech(levelled(take), rate, out), found.cost, found.round_trip_ms, found)


def levelled(x: dsp.Audio) -> dsp.Audio:
    """The take at TAKE_LEVEL_DBFS RMS over its louder half (so pauses and breaths do not
    count), never past full scale; the master's loudness is set later as for synthesis."""
    if len(x) == 0:
        return x.astype(np.float32)
    frames = x[: len(x) // 480 * 480].reshape(-1, 480) if len(x) >= 480 else x[None, :]
    rms = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1))
    loud = rms[rms >= np.median(rms)]
    level = float(np.sqrt(np.mean(loud**2))) if len(loud) else 0.0
    if level <= 0:
        return x.astype(np.float32)
    gain = 10 ** (TAKE_LEVEL_DBFS / 20) / level
    peak = float(np.max(np.abs(x))) * gain
    if peak > 0.99:
        gain *= 0.99 / peak
    return (x * gain).astype(np.float32)


def script_reference(parts: list[Speech], gap_ms: int = 600) -> tuple[Speech, list[int]]:
    """The segments' references as one reading with a pause between segments, and where
    each segment's boundaries start in its list."""
    rate = parts[0].rate
    gap = dsp.silence(round(gap_ms * rate / 1000))
    audio: list[dsp.Audio] = []
    bounds: list[Boundary] = []
    firsts: list[int] = []
    at = 0
    for part in parts:
        firsts.append(len(bounds))
        shift = samples_to_ms(at, rate)
        bounds += [
            Boundary(w.start, w.end, w.start_ms + shift, w.end_ms + shift) for w in part.boundaries
        ]
        audio += [part.audio, gap]
        at += len(part.audio) + len(gap)
    return Speech(np.concatenate(audio).astype(np.float32), rate, bounds), firsts


def split(whole: Aligned, reference: Speech, firsts: list[int]) -> list[TakeShare]:
    """Each segment's share of a whole-script take: its span (ms into the trimmed take), its
    boundaries (ms into that span) and its cost."""
    out: list[TakeShare] = []
    ends = [*firsts[1:], len(reference.boundaries)]
    for a, b in zip(firsts, ends, strict=True):
        mine, ref = whole.speech.boundaries[a:b], reference.boundaries[a:b]
        if not mine:
            out.append({"span": [0, 0], "boundaries": [], "cost": float("inf"), "trip": 0.0})
            continue
        start, end = mine[0].start_ms, max(w.end_ms for w in mine)
        cost, trip = whole.cost, whole.round_trip_ms
        if whole.alignment is not None:
            cost = whole.alignment.cost_between(ref[0].start_ms, ref[-1].end_ms)
            trip = whole.alignment.round_trip_between(ref[0].start_ms, ref[-1].end_ms)
        rows = [[w.start, w.end, w.start_ms - start, w.end_ms - start] for w in mine]
        out.append({"span": [start, end], "boundaries": rows, "cost": cost, "trip": trip})
    return out


# A matched share's audio starts this long before its first word's time and runs to this long
# before the next share's first word (the recogniser's word ends are where the next token
# starts: a line's last word often ends in the pause after it; its starts are early if
# anything); the silence this takes in is trimmed.
SHARE_LEAD_MS = 100


def matched_split(
    shares: list[Share], take: dsp.Audio, rate: int, refs: list[Speech]
) -> list[TakeShare]:
    """Each segment's share of a (trimmed) whole-script take as script matching found it
    (service/domain/script_match.py), in split()'s form. Within its span, the segment's
    own reference is carried onto its speech by DTW (its phrase boundaries, its cost): the
    recogniser says where a line is, the alignment where its phrases are."""
    out: list[TakeShare] = []
    length = samples_to_ms(len(take), rate)
    heard = [k for k, s in enumerate(shares) if s.end_ms > s.start_ms]
    for k, (share, ref) in enumerate(zip(shares, refs, strict=True)):
        if k not in heard:
            at = share.start_ms
            out.append({"span": [at, at], "boundaries": [], "cost": float("inf"), "trip": 0.0})
            continue
        after = [shares[j].start_ms for j in heard if j > k]
        start = max(0, share.start_ms - SHARE_LEAD_MS)
        end = max(share.end_ms, after[0] - SHARE_LEAD_MS) if after else length
        piece = take[ms_to_samples(start, rate) : ms_to_samples(end, rate)]
        a, _ = speech_span(piece)
        got = carried(ref, piece, rate)
        start += samples_to_ms(a, rate)
        rows = [[w.start, w.end, w.start_ms, w.end_ms] for w in got.speech.boundaries]
        span = [start, start + got.speech.duration_ms]
        out.append({"span": span, "boundaries": rows, "cost": got.cost, "trip": got.round_trip_ms})
    return out


def mismatch(number: int, cost: float, trip_ms: float) -> Notice | None:
    """The warning for a take whose alignment says it does not read the segment's text: its
    cost over MISMATCH_COST, or its paths there and back over MISMATCH_TRIP_MS apart."""
    if cost <= MISMATCH_COST and trip_ms <= MISMATCH_TRIP_MS:
        return None
    if not np.isfinite(cost):
        shown = "no alignment"
    elif cost > MISMATCH_COST:
        shown = f"alignment cost {cost:.2f}, over {MISMATCH_COST:g}"
    else:
        shown = f"the alignment both ways {trip_ms:.0f} ms apart, over {MISMATCH_TRIP_MS:g}"
    said = (
        f"segment {number}: the take does not seem to match the text ({shown}); its "
        "subtitles may be mistimed"
    )
    return warning("take.mismatch", said, number)

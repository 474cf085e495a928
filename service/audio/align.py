"""Where a reference reading's moments fall in a take of the same text, without a speech
recogniser: the reference is synthesised offline, both are turned into MFCC frames
(mfcc.py), their pauses are cut to one length, and DTW (dtw.py) warps one onto the other.
A time in the reference maps through the path into the take; a phrase that starts after a
pause starts, in the take, on the speech after the take's pause nearest to it (pauses are
where two readings agree best). The path's mean distance says how well the take matches
its text: a take of another text costs about twice what a reading of the same text does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from service.audio.arrays import resample
from service.audio.dtw import compress_pauses, round_trip, warp
from service.audio.mfcc import FEATURE_RATE, HOP, Features, features, pause_runs

FRAME_MS = 1000 * HOP / FEATURE_RATE  # 10 ms
KEEP_PAUSE = 12  # frames a pause is cut to before the warp
SNAP_PAUSE = 15  # frames of pause (150 ms) that make a phrase edge a pause edge
SNAP_MS = 250  # how far a mapped edge may move to the take's pause edge


@dataclass(frozen=True)
class Alignment:
    """A reference reading warped onto a take; ``cost`` is the mean distance (per feature,
    on normalised MFCCs) over the reference's speech frames; inf when no path exists."""

    ref: Features
    take: Features
    ref_kept: np.ndarray  # compressed frame -> original reference frame
    take_kept: np.ndarray
    path: np.ndarray  # compressed reference frame -> compressed take frame
    distance: np.ndarray  # per compressed reference frame, on the path
    chance: float  # the mean distance of frames paired at random (the costs' unit)
    cost: float
    trip: np.ndarray  # per compressed reference frame: frames off after a round trip (dtw.py)

    @property
    def round_trip_ms(self) -> float:
        """The mean round-trip error over the reference's speech (ms)."""
        return self.round_trip_between(0.0, float("inf"))

    def round_trip_between(self, start_ms: float, end_ms: float) -> float:
        frames = self.ref_kept * FRAME_MS
        inside = (frames >= start_ms) & (frames < end_ms) & ~self.ref.pause[self.ref_kept]
        if not np.any(inside):
            return float("inf")
        return float(np.mean(self.trip[inside])) * FRAME_MS

    def cost_between(self, start_ms: float, end_ms: float) -> float:
        """The cost of the reference's speech between two times (one segment of a whole
        script), as ``cost`` is of all of it."""
        frames = self.ref_kept * FRAME_MS
        inside = (frames >= start_ms) & (frames < end_ms) & ~self.ref.pause[self.ref_kept]
        if not np.any(inside) or not np.all(np.isfinite(self.distance[inside])):
            return float("inf")
        return float(np.mean(self.distance[inside])) / self.chance

    def frame(self, ms: float) -> int:
        """The take frame a reference time maps to."""
        f = int(np.clip(round(ms / FRAME_MS), 0, max(0, self.ref.frames - 1)))
        k = int(np.clip(np.searchsorted(self.ref_kept, f), 0, len(self.path) - 1))
        return int(self.take_kept[self.path[k]])

    def to_take_ms(self, ms: float, edge: str = "start") -> int:
        """A reference time (ms) in the take; a phrase ``edge`` ("start" or "end") next to a
        reference pause lands on the nearest pause edge of the take."""
        f = self.frame(ms)
        near = self._pause_edge(ms, edge)
        if near is not None:
            edges = self._take_edges(edge)
            if len(edges):
                best = edges[np.argmin(np.abs(edges - f))]
                if abs(best - f) * FRAME_MS <= SNAP_MS:
                    f = int(best)
        return round(f * FRAME_MS)

    def _pause_edge(self, ms: float, edge: str) -> int | None:
        """The reference's pause edge at ``ms`` (speech resumes / stops there), if any."""
        f = round(ms / FRAME_MS)
        for a, b in pause_runs(self.ref.pause, SNAP_PAUSE):
            if edge == "start" and abs(b - f) <= 3:
                return b
            if edge == "end" and abs(a - f) <= 3:
                return a
        if edge == "start" and f <= 3:
            return 0
        if edge == "end" and f >= self.ref.frames - 3:
            return self.ref.frames
        return None

    def _take_edges(self, edge: str) -> np.ndarray:
        runs = pause_runs(self.take.pause, SNAP_PAUSE)
        if edge == "start":
            return np.array([0] + [b for _, b in runs], dtype=np.int64)
        return np.array([a for a, _ in runs] + [self.take.frames], dtype=np.int64)


def chance(ref: Features, take: Features, pairs: int = 4000) -> float:
    """The mean distance of speech frames paired at random: what a path through unrelated
    sounds would cost, between these two voices (another speaker is further off everywhere,
    so the path's cost is read against it)."""
    rng = np.random.default_rng(0)
    a = np.flatnonzero(~ref.pause)
    b = np.flatnonzero(~take.pause)
    if len(a) == 0 or len(b) == 0:
        return 1.0
    x = ref.ceps[rng.choice(a, pairs)]
    y = take.ceps[rng.choice(b, pairs)]
    return float(np.mean((x - y) ** 2)) or 1.0


def align(reference: np.ndarray, ref_rate: int, take: np.ndarray, take_rate: int) -> Alignment:
    """Warp ``reference`` (the text synthesised) onto ``take`` (a reading of it), each mono
    float at its rate."""
    ref_f = features(resample(reference, ref_rate, FEATURE_RATE))
    take_f = features(resample(take, take_rate, FEATURE_RATE))
    ref_kept = compress_pauses(ref_f.pause, KEEP_PAUSE)
    take_kept = compress_pauses(take_f.pause, KEEP_PAUSE)
    ref_c, take_c = ref_f.ceps[ref_kept], take_f.ceps[take_kept]
    found = warp(ref_c, take_c)
    speech = ~ref_f.pause[ref_kept]
    unit = chance(ref_f, take_f)
    if np.isfinite(found.total) and np.any(speech):
        cost = float(np.mean(found.distance[speech])) / unit
    else:
        cost = float("inf")
    trip = round_trip(ref_c, take_c, found.take) if np.isfinite(found.total) else found.distance
    return Alignment(
        ref_f, take_f, ref_kept, take_kept, found.take, found.distance, unit, cost, trip
    )

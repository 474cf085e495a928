"""Dynamic time warping of a reference utterance onto a take of the same text (pure numpy).

Asymmetric: every reference frame is matched to exactly one take frame, moving 0 to 3 take
frames per reference frame (the take may be up to 3x slower locally, or any amount faster),
so the path is a function ref frame -> take frame, which is what mapping the reference's
phrase times into the take needs. Each row depends only on the row before it, so a row is
one vectorised step. Two passes: a coarse one over every pair at 4x fewer frames, then a
fine one within a band around the coarse path, so a 90 s take costs well under a second."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STEPS = 4  # take frames advanced per reference frame: 0, 1, 2, 3
STAY_PENALTY = 0.6  # per reference frame held on one take frame (take faster)
SKIP_PENALTY = 0.4  # per take frame skipped (take slower)
COARSE = 4  # frames pooled per coarse frame
RADIUS = 24  # fine band half-width, in frames (240 ms) around the coarse path


@dataclass(frozen=True)
class Path:
    """take frame per reference frame, the distance of each matched pair, and the total."""

    take: np.ndarray  # int per reference frame
    distance: np.ndarray  # float per reference frame
    total: float  # inf: no path (the take is over 3x the reference's length)


def _step_costs() -> np.ndarray:
    return np.array([STAY_PENALTY, 0.0, SKIP_PENALTY, 2 * SKIP_PENALTY], dtype=np.float64)


def band_distances(ref: np.ndarray, take: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """Mean squared difference per feature of each reference frame and the take frames of its
    band (n x width), in blocks of rows so memory stays small."""
    n, d = ref.shape
    out = np.empty((n, width), dtype=np.float32)
    t2 = np.sum(take.astype(np.float64) ** 2, axis=1)
    for a in range(0, n, 1024):
        b = min(n, a + 1024)
        if width == len(take):  # the full matrix: one product
            dots = ref[a:b] @ take.T
            out[a:b] = np.sum(ref[a:b] ** 2, axis=1)[:, None] + t2[None, :] - 2 * dots
        else:
            cols = lo[a:b, None] + np.arange(width)[None, :]
            out[a:b] = np.sum((take[cols] - ref[a:b, None, :]) ** 2, axis=2)
    return np.asarray(np.maximum(out, 0.0) / d)


def banded(ref: np.ndarray, take: np.ndarray, lo: np.ndarray, width: int) -> Path:
    """DTW of ``ref`` (n x d) onto ``take`` (m x d) within the window [lo[i], lo[i]+width)
    of each reference row; the path starts at (0, 0) and ends at (n-1, m-1)."""
    n, m = len(ref), len(take)
    dist = band_distances(ref, take, lo, width)
    steps = np.zeros((n, width), dtype=np.int8)
    penalty = _step_costs()
    buf = np.full(3 * width + STEPS, np.inf)  # the row before, with room to shift it
    row = np.where(lo[0] + np.arange(width) == 0, dist[0], np.inf)
    cand = np.empty((STEPS, width))
    cols = np.arange(width)
    for i in range(1, n):
        buf[width + STEPS : 2 * width + STEPS] = row
        shift = int(lo[i] - lo[i - 1])
        if abs(shift) > width:
            buf[width + STEPS : 2 * width + STEPS] = np.inf
            shift = 0
        base = width + STEPS + shift
        for s in range(STEPS):
            np.add(buf[base - s : base - s + width], penalty[s], out=cand[s])
        best = np.argmin(cand, axis=0)
        row = cand[best, cols] + dist[i]
        steps[i] = best
    end = m - 1 - lo[n - 1]
    if not 0 <= end < width or not np.isfinite(row[end]):
        return Path(np.zeros(n, dtype=np.int64), np.full(n, np.inf), float("inf"))
    path = np.empty(n, dtype=np.int64)
    j = m - 1
    for i in range(n - 1, -1, -1):
        path[i] = j
        j -= int(steps[i, j - lo[i]])
    return Path(path, dist[np.arange(n), path - lo].astype(np.float64), float(row[end]))


def pooled(x: np.ndarray, k: int) -> np.ndarray:
    """Means of ``k`` consecutive frames (the last group may be short)."""
    n = -(-len(x) // k)
    padded = np.concatenate([x, np.repeat(x[-1:], n * k - len(x), axis=0)])
    return np.asarray(padded.reshape(n, k, -1).mean(axis=1))


def warp(ref: np.ndarray, take: np.ndarray) -> Path:
    """The fine path of ``ref`` onto ``take``: every pair at coarse resolution, then a band
    of +-RADIUS frames around the coarse path."""
    n, m = len(ref), len(take)
    if n == 0 or m == 0:
        return Path(np.zeros(n, dtype=np.int64), np.full(n, np.inf), float("inf"))
    if n * m <= 400 * 400:  # short: the full matrix at full resolution
        return banded(ref, take, np.zeros(n, dtype=np.int64), m)
    rc, tc = pooled(ref, COARSE), pooled(take, COARSE)
    coarse = banded(rc, tc, np.zeros(len(rc), dtype=np.int64), len(tc))
    if not np.isfinite(coarse.total):  # no path: said at full resolution, one per ref frame
        return Path(np.zeros(n, dtype=np.int64), np.full(n, np.inf), float("inf"))
    # The coarse path's take frame at each fine reference frame, interpolated.
    at = (np.arange(n) + 0.5) / COARSE - 0.5
    centre = np.interp(at, np.arange(len(rc)), coarse.take * COARSE + COARSE / 2 - 0.5)
    width = min(m, 2 * RADIUS + 1)
    lo = np.clip(np.round(centre).astype(np.int64) - width // 2, 0, m - width)
    lo[0], lo[-1] = 0, m - width  # the path's two ends are in the band
    return banded(ref, take, lo, width)


def round_trip(ref: np.ndarray, take: np.ndarray, there: np.ndarray) -> np.ndarray:
    """How far (frames) each reference frame lands from itself when taken to the take by
    ``there`` (its path) and back by the take's own coarse path onto the reference. Two
    readings of one text agree both ways (a few frames); a take of another text gives a path
    each way that has nothing to agree on. inf everywhere when no path back exists."""
    rc, tc = pooled(ref, COARSE), pooled(take, COARSE)
    back = banded(tc, rc, np.zeros(len(tc), dtype=np.int64), len(rc))
    if not np.isfinite(back.total):
        return np.full(len(ref), np.inf)
    home = back.take[np.minimum(there // COARSE, len(tc) - 1)] * COARSE + COARSE / 2
    return np.asarray(np.abs(home - np.arange(len(ref))))


def compress_pauses(pause: np.ndarray, keep: int) -> np.ndarray:
    """Frame indices kept when every pause is cut to its first and last ``keep // 2`` frames:
    two readings of one text differ most in how long they pause, so the warp sees pauses of
    one length, and the kept frames map back to the original times."""
    out = np.ones(len(pause), dtype=bool)
    edges = np.diff(np.concatenate([[0], pause.astype(np.int8), [0]]))
    half = keep // 2
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if b - a > keep:
            out[a + half : b - (keep - half)] = False
    return np.flatnonzero(out)

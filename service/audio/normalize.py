"""Loudness normalisation with a true-peak limiter, whole or streamed to a WAV file."""

from __future__ import annotations

import os
import wave
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from service.audio.arrays import SILENCE_THRESHOLD, Audio
from service.audio.loudness import Loudness, LoudnessMeter, limit
from service.audio.passes import Streamed, Written, correction_meter, passes
from service.audio.stream import _TP_CONTEXT, BLOCK, ArraySource, Source, TruePeakMeter, _blocks
from service.audio.wav import quantize, to_pcm16

if TYPE_CHECKING:
    from service.ports import PcmSink


def _limit_block(src: Source, a: int, b: int, gain: float, rate: int, ceiling_db: float) -> Audio:
    """Samples [a, b) of ``limit(src * gain)``: the limiter's filters reach ``margin``
    samples either side, so it runs on the block with that much of the track around it."""
    margin = 2 * max(3, int(rate * 0.008)) + 4 * _TP_CONTEXT
    lo, hi = max(0, a - margin), min(src.length, b + margin)
    chunk = src.read(lo, hi)
    if not np.any(chunk):
        return np.zeros(b - a, dtype=np.float32)
    return limit(chunk * gain, rate, ceiling_db)[a - lo : b - lo]


class _WavOut:
    """Mono 16-bit PCM written block by block under a temporary name; ``commit`` renames it
    into place (never half a file), ``discard`` removes it. ``sink`` makes an encoder that
    gets the same PCM as it is written (it then need not wait for the file). The file is
    opened before the encoder starts: a file that cannot be opened (a canceled job's work
    directory, removed under it) leaves no encoder waiting on its input."""

    def __init__(
        self, path: Path, rate: int, frames: int, sink: Callable[[], PcmSink] | None = None
    ) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        # Opened here, not by wave.open(name): a wave.open that fails leaves a half-made
        # writer whose __del__ raises.
        self.file = open(self.tmp, "wb")  # noqa: SIM115 (closed by commit/discard)
        self.w = wave.open(self.file, "wb")  # noqa: SIM115 (closed with the file)
        self.w.setnchannels(1)
        self.w.setsampwidth(2)
        self.w.setframerate(rate)
        self.w.setnframes(frames)
        try:
            self.sink = sink() if sink is not None else None
        except BaseException:
            self._close()
            self.tmp.unlink(missing_ok=True)
            raise

    def _close(self) -> None:
        self.w.close()
        self.file.close()  # a writer given a file object leaves it open

    def write(self, x: Audio) -> None:
        pcm = to_pcm16(x).tobytes()
        self.w.writeframesraw(pcm)
        if self.sink is not None:
            self.sink.write(pcm)

    def commit(self) -> None:
        self._close()
        if self.sink is not None:
            try:
                self.sink.finish()
            except BaseException:
                self.tmp.unlink(missing_ok=True)
                raise
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        self._close()
        self.tmp.unlink(missing_ok=True)
        if self.sink is not None:
            self.sink.cancel()


class _ArrayOut:
    def __init__(self) -> None:
        self.parts: list[Audio] = []

    def write(self, x: Audio) -> None:
        self.parts.append(quantize(x))

    def commit(self) -> None:
        pass

    def discard(self) -> None:
        self.parts = []


Out = _WavOut | _ArrayOut


# The most the limiter is asked to take back (dB of gain past the unlimited one): a target the
# track cannot reach under its ceiling (a loud target on peaky speech) ends as close as this
# allows, reported as missed, instead of the secant running the gain up by tens of dB.
MAX_LIMITING_DB = 12.0
SAMPLE_FROM = 9 * BLOCK  # a longer track's limiter loss is measured on every third block


def _sampled(i: int, length: int) -> bool:
    """Whether block ``i`` is in the sample the limiter's loss is measured on."""
    return length <= SAMPLE_FROM or i % 3 == 0


def _aim(
    track: Streamed, target: float, lufs: float, sample: float, ceiling_db: float
) -> tuple[float, float]:
    """The gain for the first full pass. The limiter takes back part of any gain (0.5-0.8 LU on
    espeak's peaky speech at -16 LUFS), the more the more gain, so solve ``lufs + gain +
    loss(gain) = target`` by secant steps, the loss measured on a sample of the track (every
    third block of a long one): a guess, as the full pass measures the whole track anyway.
    ``sample`` is the sample's loudness, as measured. Returns the gain and the slope of
    loudness against gain there (for a next step)."""
    n = track.src.length
    blocks = [(i, a, b) for i, (a, b) in enumerate(_blocks(n)) if _sampled(i, n)]
    if not np.isfinite(sample):
        return target - lufs, 1.0

    def predicted(gain_db: float) -> float:
        limited = track.measure(blocks, 10 ** (gain_db / 20), ceiling_db, n > SAMPLE_FROM)
        return lufs + limited.integrated() - sample  # the sample's loss, on the whole

    points = [(0.0, lufs)]
    gain_db, slope = target - lufs, 1.0
    for _ in range(3):
        points.append((gain_db, predicted(gain_db)))
        (g0, l0), (g1, l1) = points[-2:]
        slope = _slope(g0, l0, g1, l1, slope)
        if abs(l1 - target) <= 0.1:  # the full pass accepts 0.2; the sample errs ~0.1
            break
        gain_db = min(gain_db + (target - l1) / slope, target - lufs + MAX_LIMITING_DB)
    return gain_db, slope


def _slope(g0: float, l0: float, g1: float, l1: float, last: float) -> float:
    """The secant's slope of loudness against gain, kept within [0.25, 1]: the limiter only
    ever takes back part of a gain."""
    slope = (l1 - l0) / (g1 - g0) if abs(g1 - g0) > 1e-6 else last
    return min(1.0, max(0.25, slope))


def _normalize(
    track: Streamed, target: float, peak_db: float, new_out: Callable[[], Out]
) -> Loudness:
    """Gain to ``target`` LUFS, true-peak limit below ``peak_db``, then measure again.

    Limiting lowers loudness a little, so gain and limit repeat until the measurement on the
    16-bit result lands within 0.2 LU of the target with the peak under the ceiling. Each
    pass streams the track in blocks and writes its result as it goes; the last is kept.
    ``track`` is the source and how the passes read it (streamed, or reusing the first
    pass's measurements: passes.py).
    """
    src, rate = track.src, track.rate
    meter, sample, loudest = LoudnessMeter(rate), LoudnessMeter(rate), 0.0
    sampling = src.length > SAMPLE_FROM  # else the sample is the track: ``meter`` measures it
    for i, (a, b) in enumerate(_blocks(src.length)):
        x = src.read(a, b)
        track.first(i, x, meter, sample if sampling and _sampled(i, src.length) else None)
        loudest = max(loudest, float(np.max(np.abs(x))) if len(x) else 0.0)
    if loudest <= SILENCE_THRESHOLD:
        out = new_out()
        for a, b in _blocks(src.length):
            out.write(src.read(a, b))
        out.commit()
        return Loudness(float("-inf"), float("-inf"), 0.0)
    # Aimed for the limiter's loss, the first full pass usually lands (on all three examples,
    # which took two before: one gain, limit, write and encode less per render).
    lufs = unlimited = meter.integrated()
    sampled = sample.integrated() if sampling else lufs
    gain_db, slope = _aim(track, target, lufs, sampled, peak_db - 0.3)
    tried: list[tuple[float, float]] = []  # (gain dB, LUFS) of the full passes so far
    lufs = tp = lra = 0.0
    for attempt in range(6):
        gain = 10 ** (gain_db / 20)
        out, meter, peak = new_out(), LoudnessMeter(rate), TruePeakMeter()
        fix = correction_meter(rate)
        try:
            for a, b in _blocks(src.length):
                limited, x = track.limited(a, b, gain, peak_db - 0.3)
                y = quantize(limited)
                out.write(y)
                track.count(meter, fix, y, Written(a, b, x, limited, gain))
                peak.feed(y)
        except BaseException:
            out.discard()
            raise
        lufs, tp, lra = meter.integrated(), peak.finish(), meter.loudness_range()
        if (abs(lufs - target) <= 0.2 and tp <= peak_db) or attempt == 5:
            out.commit()
            break
        out.discard()
        # Step along the secant of the last two passes (the aim's slope after the first).
        if tried:
            slope = _slope(*tried[-1], gain_db, lufs, slope)
        tried.append((gain_db, lufs))
        gain_db = min(gain_db + (target - lufs) / slope, target - unlimited + MAX_LIMITING_DB)
    return Loudness(round(lufs, 2), round(tp, 2), round(gain_db, 2), round(lra, 2))


def normalize_to_wav(
    src: Source,
    rate: int,
    path: Path,
    target: float = -16.0,
    peak_db: float = -1.0,
    sink: Callable[[], PcmSink] | None = None,
    reuse: bool | None = None,
) -> Loudness:
    """Normalize ``src`` (see ``_normalize``) into a mono 16-bit WAV at ``path``, in blocks:
    memory stays the same for a one-minute and a one-hour track. Each pass also feeds a new
    ``sink()``; the kept pass's is finished, the others' cancelled."""
    return _normalize(
        passes(src, rate, reuse),
        target,
        peak_db,
        lambda: _WavOut(path, rate, src.length, sink),
    )


def normalize(
    x: Audio, rate: int, target: float = -16.0, peak_db: float = -1.0, reuse: bool | None = None
) -> tuple[Audio, Loudness]:
    """``normalize_to_wav`` for audio in memory: the 16-bit result as float32."""
    outs: list[_ArrayOut] = []

    def new_out() -> _ArrayOut:
        outs.append(_ArrayOut())
        return outs[-1]

    loud = _normalize(passes(ArraySource(x), rate, reuse), target, peak_db, new_out)
    parts = outs[-1].parts
    y = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return y, loud

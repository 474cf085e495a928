"""manifest.json: what a finished job is made of, deterministic (no wall-clock figures), so
a re-run writes the same bytes. Times in seconds, as the job spec gives them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service import audio as dsp
from service.domain.spec import JobSpec
from service.domain.subtitles import Cue
from service.domain.timeline import Slot, TimedOverlay
from service.domain.units import ms_to_s
from service.pipeline.results import SegmentResult


@dataclass
class Placed:
    """The fitted segments laid on the timeline, with the overlays and how long it runs."""

    results: list[SegmentResult]
    slots: list[Slot]
    overlays: list[TimedOverlay]
    total_ms: int


def build_manifest(
    spec: JobSpec,
    placed: Placed,
    cues: list[Cue],
    loud: dsp.Loudness,
    sample_rate: int,
    warnings: list[str],
) -> dict[str, Any]:
    segments = zip(spec.segments, placed.results, placed.slots, strict=True)
    return {
        "title": spec.title,
        "language": spec.language,
        "duration": ms_to_s(placed.total_ms),
        "sample_rate": sample_rate,
        "segments": [
            {
                "index": r.index + 1,
                "label": seg.label,
                "text": seg.text,
                "spoken_text": r.spoken_text,
                "start": ms_to_s(slot.start_ms),
                "end": ms_to_s(slot.end_ms),
                "allotted": seg.seconds,
                "natural_duration": ms_to_s(r.natural_ms),
                "speech_duration": ms_to_s(r.speech_ms),
                "requested_rate": seg.rate,
                "native_rate": r.native_rate,
                "pitch": seg.pitch,
                "volume": seg.volume,
                "stretch_ratio": r.stretch_ratio,
                "engine": r.engine,
                "voice": r.voice,
                "speaker": seg.speaker,
            }
            for seg, r, slot in segments
        ],
        "overlays": [
            {"text": o.text, "start": ms_to_s(o.start_ms), "end": ms_to_s(o.end_ms)}
            for o in placed.overlays
        ],
        "cues": [
            {
                "start": ms_to_s(c.start_ms),
                "end": ms_to_s(c.end_ms),
                "text": c.text,
                "layer": c.layer,
            }
            for c in cues
        ],
        "loudness": {
            "integrated_lufs": loud.integrated_lufs,
            "true_peak_dbtp": loud.true_peak_dbtp,
        },
        "warnings": warnings,
    }

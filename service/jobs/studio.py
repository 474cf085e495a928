"""The studio's use cases beside the job API: check a script as a job would without
creating one (``parse``), hear one segment of a finished job (``segment_audio``), and render a
job again from an edited spec (``rerender``). The routes (service/api/routes/studio.py) only
translate HTTP."""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass

from pydantic import BaseModel

from service.domain.errors import InputError
from service.domain.job import Job
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, spec_from_data
from service.domain.timeline import PaceCheck, pace_checks, place_segments, slots_ms
from service.jobs.rerender import rerender
from service.jobs.service import JobService
from service.pipeline import JobPlan
from service.ports import Artifact


class Slot(BaseModel):
    start: float
    end: float


class Slots(BaseModel):
    """What a segment's audio needs of manifest.json (ManifestSegment's times): only that,
    so a manifest written by any version reads."""

    segments: list[Slot]


class NotFound(LookupError):
    """What was asked for is not there (the route's 404)."""


class BrokenArtifact(RuntimeError):
    """A stored artifact is not what it should be (the route's 500)."""


@dataclass(frozen=True)
class ParsedScript:
    """A script checked as a job would be: its spec as written, its plan, each segment's pace
    and how long the narration will run."""

    spec: JobSpec
    plan: JobPlan
    checks: list[PaceCheck]
    duration: float


class Studio:
    def __init__(self, jobs: JobService) -> None:
        self.jobs = jobs

    def parse(self, tenant: str, script: str, name: str, options: RenderOptions) -> ParsedScript:
        """Parse and check a script (voices, pace, timeline) without creating a job."""
        try:
            spec = parse_script(script, name)
        except RecursionError:
            raise InputError("the job spec is nested too deeply") from None
        resolved = self.jobs.presets.resolve(tenant, options)
        options, lexicons = self.jobs.lexicons.resolve(tenant, resolved)
        plan = self.jobs.pipeline.door.plan(spec, options, lexicons=lexicons)
        return ParsedScript(spec, plan, pace_checks(plan.spec), duration(plan.spec))

    def segment_audio(self, job: Job, index: int) -> bytes:
        """Segment ``index`` (1-based) as heard in narration.wav: its slot, fitted and
        normalised, as a WAV file of its own."""
        manifest = self.jobs.artifact(job, "manifest.json")
        narration = self.jobs.artifact(job, "narration.wav")
        if manifest is None or narration is None:
            raise NotFound("the job has no narration yet")
        segs = Slots.model_validate_json(manifest.read(0, manifest.size)).segments
        if not 1 <= index <= len(segs):
            raise NotFound(f"no segment {index}: the job has {len(segs)}")
        seg = segs[index - 1]
        return slice_wav(narration, seg.start, seg.end)

    def rerender(self, parent: Job, spec: JobSpec, options: RenderOptions | None) -> Job:
        """The re-render as a stored, queued job under a new id (blocking: in a worker
        thread); on any failure, nothing of its uploads is left."""
        new_id = self.jobs.new_id()
        try:
            return rerender(self.jobs, parent, new_id, spec, options)
        except BaseException:
            self.jobs.drop_upload(parent.tenant, new_id)
            raise


def edited_spec(data: object) -> JobSpec:
    """An edited job spec as the studio sends it: checked, and its text encodable."""
    try:
        spec = spec_from_data(data)
        spec.model_dump_json().encode("utf-8")
    except RecursionError:
        raise InputError("the job spec is nested too deeply") from None
    except (UnicodeEncodeError, ValueError) as exc:
        raise InputError("the job spec holds text that is not valid Unicode") from exc
    return spec


def duration(spec: JobSpec) -> float:
    """The narration's length as the job will lay it out: the overflow policy applied
    (``extend`` lengthens a segment and pushes the later ones back) and starts kept."""
    slots = place_segments(spec, slots_ms(spec))
    return round(slots[-1].end_ms / 1000, 3) if slots else 0.0


def slice_wav(wav: Artifact, start: float, end: float) -> bytes:
    """Frames [start, end) s of a PCM WAV artifact, as a WAV file of their own: the header
    and then just those frames are read (the artifact may be in an object store)."""
    head = wav.read(0, min(wav.size, 4096))
    with wave.open(io.BytesIO(head), "rb") as src:
        rate, width = src.getframerate(), src.getsampwidth() * src.getnchannels()
        channels, total = src.getnchannels(), src.getnframes()
    data = data_offset(head)
    first = min(round(start * rate), total)
    last = max(first, min(round(end * rate), total))
    frames = wav.read(data + first * width, data + last * width)
    out = io.BytesIO()
    with wave.open(out, "wb") as dst:
        dst.setnchannels(channels)
        dst.setsampwidth(width // channels)
        dst.setframerate(rate)
        dst.writeframes(frames)
    return out.getvalue()


def data_offset(head: bytes) -> int:
    """Where a WAV file's frames start: after the RIFF header, past each chunk to ``data``."""
    pos = 12
    while pos + 8 <= len(head):
        size = int.from_bytes(head[pos + 4 : pos + 8], "little")
        if head[pos : pos + 4] == b"data":
            return pos + 8
        pos += 8 + size + (size & 1)
    raise BrokenArtifact("narration.wav has no data chunk in its first 4 KiB")

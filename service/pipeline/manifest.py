"""manifest.json: what a finished job is made of, deterministic (no wall-clock figures), so
a re-run writes the same bytes. Times in seconds, as the job spec gives them. A typed model
(Manifest), whose JSON Schema is published as docs/manifest.schema.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from service import audio as dsp
from service.domain.ducking import under_speech
from service.domain.notices import Notice
from service.domain.options import PASS_LU, MasterLoudness
from service.domain.speech_compare import SpeechCheck
from service.domain.style import AppliedStyle
from service.domain.subtitles import Cue
from service.domain.timeline import Slot, TimedOverlay
from service.domain.units import ms_to_s
from service.domain.wire import AS_GIVEN, CHECK_OBJECT, OBJECT_SCHEMA
from service.pipeline.listen import SpeechCheckSummary, speech_summary
from service.pipeline.results import JobPlan, SegmentResult

# The style as applied, as style.resolve() made it, written as it is: a styles file's 0 stays
# 0 and key order stays (a re-run writes the same bytes), where LookData's float fields would
# write 0.0. Its schema stays the plain object it was (docs/manifest.schema.json).
ManifestStyle = Annotated[AppliedStyle, CHECK_OBJECT, AS_GIVEN, OBJECT_SCHEMA]


@dataclass
class Placed:
    """The fitted segments laid on the timeline, with the overlays and how long it runs."""

    results: list[SegmentResult]
    slots: list[Slot]
    overlays: list[TimedOverlay]
    total_ms: int

    def speech_ms(self) -> list[tuple[int, int]]:
        """Where the voice speaks, (start, end) ms on the timeline per segment: what every
        ducking follows (the music bed, the source's own audio, the exported bed's keyframes)."""
        return under_speech(
            (s.start_ms, r.speech_ms) for s, r in zip(self.slots, self.results, strict=True)
        )


class Loudness(BaseModel):
    """A master's loudness as measured (ITU-R BS.1770 integrated and true peak, EBU Tech 3342
    range) against its target: ``passed`` is within 0.5 LU of the target, under the true-peak
    ceiling and, when the target sets one, within the largest loudness range."""

    integrated_lufs: float
    true_peak_dbtp: float
    target_lufs: float | None = None
    true_peak_ceiling_dbtp: float | None = None
    loudness_range_lu: float | None = None
    lra_max_lu: float | None = None
    passed: bool | None = None

    @classmethod
    def measured(cls, loud: dsp.Loudness, target: MasterLoudness) -> Loudness:
        ok = (
            abs(loud.integrated_lufs - target.target_lufs) <= PASS_LU
            and loud.true_peak_dbtp <= target.true_peak_dbtp
            and (target.lra_max is None or loud.loudness_range_lu <= target.lra_max)
        )
        return cls(
            integrated_lufs=loud.integrated_lufs,
            true_peak_dbtp=loud.true_peak_dbtp,
            target_lufs=target.target_lufs,
            true_peak_ceiling_dbtp=target.true_peak_dbtp,
            loudness_range_lu=loud.loudness_range_lu,
            lra_max_lu=target.lra_max,
            passed=bool(ok),
        )


class ManifestSegment(BaseModel):
    """One segment as rendered: its slot, how it was spoken and fitted."""

    index: int = Field(description="1-based, as the script numbers segments")
    label: str | None
    text: str
    spoken_text: str = Field(description="what the engine was given (readings, pinyin)")
    start: float
    end: float
    allotted: float
    natural_duration: float
    speech_duration: float
    requested_rate: str | None
    native_rate: float
    pitch: str | None
    volume: str | None
    stretch_ratio: float
    engine: str
    voice: str
    speaker: str | None
    take: bool = Field(False, description="spoken by a recorded take, not synthesised")
    alignment_cost: float | None = Field(
        None,
        description="the take's DTW cost against its text (over the threshold: take.mismatch); "
        "null for synthesis",
    )
    speech_check: SpeechCheck | None = Field(
        None, description="what the recogniser heard against the script; none: check off"
    )


class ManifestOverlay(BaseModel):
    text: str
    start: float
    end: float


class ManifestCue(BaseModel):
    start: float
    end: float
    text: str
    layer: int = Field(description="0 narration, 1 qualifiers, 2 screen text, 3 title card, 4 hook")
    translation: str | None = Field(
        None, description="the supplied translation's lines this cue shows (bilingual jobs)"
    )

    @classmethod
    def of(cls, c: Cue) -> ManifestCue:
        return cls(
            start=ms_to_s(c.start_ms),
            end=ms_to_s(c.end_ms),
            text=c.text,
            layer=c.layer,
            translation="\n".join(c.translation) if c.translation else None,
        )


class Translations(BaseModel):
    """A bilingual job's supplied translations: which parts have none (and so show Chinese
    only; nothing is machine-translated)."""

    segments_without: list[int] = Field(description="1-based segments with no translation")
    qualifiers_without: list[int] = Field(description="1-based qualifiers with no translation")


class Traditional(BaseModel):
    """The Traditional Chinese track (subtitles.zh-Hant.*)."""

    variant: str = Field(description="tw (OpenCC s2twp) or hk (s2hk)")
    chosen_by: str = Field(description="options (asked for) or voice (by a zh-TW/zh-HK voice)")
    burned_in: bool = Field(description="the video shows it (burn_in_script: hant)")


class MusicReport(BaseModel):
    """The music laid under the voice (mix.wav)."""

    file: str
    music_lufs: float
    level_db: float
    duck_db: float
    duration: float
    loudness: Loudness


class ManifestMaster(BaseModel):
    """One master of a job with ``masters``: its files are masters/<name>/..."""

    name: str
    preset: str | None
    burn_in: bool
    screen_text: bool
    style: ManifestStyle = Field(description="its subtitle style as applied")
    loudness: Loudness = Field(description="its narration.wav, measured against its target")
    music: Loudness | None = Field(None, description="its mix.wav (with music), measured")
    picture: str | None = Field(
        description="its video's picture: 'source' (the upload's, stream-copied), 'encoded' "
        "(re-encoded for it: burn-in, frozen end) or the name of the master whose encode it "
        "stream-copies; none without a video"
    )
    artifacts: list[str]


class ManifestLexicon(BaseModel):
    """A pronunciation dictionary the job named, at the version it read."""

    id: str
    version: int
    name: str
    entries: int = Field(description="its alias and pinyin rules for words of the job's text")
    skipped: list[str] = Field(description="the job's words it has IPA rules only for")


class Manifest(BaseModel):
    """manifest.json, a public artifact: what a finished job is made of (its JSON Schema is
    docs/manifest.schema.json). Times in seconds."""

    model_config = ConfigDict(title="narrate manifest")

    title: str | None
    language: str
    duration: float
    sample_rate: int
    segments: list[ManifestSegment]
    overlays: list[ManifestOverlay]
    cues: list[ManifestCue]
    loudness: Loudness
    warnings: list[Notice]
    style: ManifestStyle = Field(description="the subtitle style as applied")
    screen_text: bool
    qualifier_display: str
    music: MusicReport | None = None
    subtitle_tracks: list[str] = Field(
        ["subtitles.srt", "subtitles.vtt", "subtitles.ass"], description="the files written"
    )
    traditional: Traditional | None = None
    translations: Translations | None = None
    masters: list[ManifestMaster] | None = Field(
        None, description="each master (options masters), when the job asked for several"
    )
    speech_check: SpeechCheckSummary | None = Field(
        None, description="the speech check over the job; none: the check was off"
    )
    lexicons: list[ManifestLexicon] | None = Field(
        None, description="the pronunciation dictionaries the job named (options lexicons)"
    )

    def to_json(self) -> str:
        """The file's text: keys in this order, no ``music``, ``traditional``,
        ``translations``, ``masters``, ``speech_check`` or ``lexicons`` without them, no cue
        ``translation`` and no segment ``speech_check`` without one."""
        unset = {"music", "traditional", "translations", "masters", "speech_check", "lexicons"}
        data = self.model_dump(mode="json", exclude={k for k in unset if getattr(self, k) is None})
        for cue in data["cues"]:
            if cue["translation"] is None:
                del cue["translation"]
        for seg in data["segments"]:
            if seg["speech_check"] is None:
                del seg["speech_check"]
        return json.dumps(data, ensure_ascii=False, indent=2)


def manifest_schema() -> dict[str, Any]:  # a JSON Schema document: a wire format
    """The JSON Schema of manifest.json (``docs/manifest.schema.json``)."""
    return Manifest.model_json_schema()


def build_manifest(
    plan: JobPlan,
    placed: Placed,
    cues: list[Cue],
    loud: dsp.Loudness,
    target: MasterLoudness,
    sample_rate: int,
    warnings: list[Notice],
    music: MusicReport | None = None,
    masters: list[ManifestMaster] | None = None,
) -> Manifest:
    spec, tracks = plan.spec, tracks_report(plan)
    segments = zip(spec.segments, placed.results, placed.slots, strict=True)
    return Manifest(
        title=spec.title,
        language=spec.language,
        duration=ms_to_s(placed.total_ms),
        sample_rate=sample_rate,
        segments=[
            ManifestSegment(
                index=r.index + 1,
                label=seg.label,
                text=seg.text,
                spoken_text=r.spoken_text,
                start=ms_to_s(slot.start_ms),
                end=ms_to_s(slot.end_ms),
                allotted=seg.seconds,
                natural_duration=ms_to_s(r.natural_ms),
                speech_duration=ms_to_s(r.speech_ms),
                requested_rate=seg.rate,
                native_rate=r.native_rate,
                pitch=seg.pitch,
                volume=seg.volume,
                stretch_ratio=r.stretch_ratio,
                engine=r.engine,
                voice=r.voice,
                speaker=seg.speaker,
                take=r.take is not None,
                alignment_cost=r.alignment_cost,
                speech_check=r.speech_check,
            )
            for seg, r, slot in segments
        ],
        overlays=[
            ManifestOverlay(text=o.text, start=ms_to_s(o.start_ms), end=ms_to_s(o.end_ms))
            for o in placed.overlays
        ],
        cues=[ManifestCue.of(c) for c in cues],
        loudness=Loudness.measured(loud, target),
        warnings=warnings,
        style=plan.style.applied,
        screen_text=spec.shows_screen_text(plan.options),
        qualifier_display=spec.qualifier_display,
        music=music,
        subtitle_tracks=tracks.names,
        traditional=tracks.traditional,
        translations=tracks.translations,
        masters=masters,
        speech_check=speech_summary(plan, placed.results),
        lexicons=lexicons_report(plan),
    )


def lexicons_report(plan: JobPlan) -> list[ManifestLexicon] | None:
    """The dictionaries the job read (None: it named none, and the manifest says nothing)."""
    found = [
        ManifestLexicon(
            id=u.id, version=u.version, name=u.name, entries=len(u.entries), skipped=u.skipped
        )
        for u in plan.lexicons
    ]
    return found or None


@dataclass(frozen=True)
class TracksReport:
    """What the manifest says of the subtitle tracks beside the Simplified one."""

    names: list[str]
    traditional: Traditional | None = None
    translations: Translations | None = None


def tracks_report(plan: JobPlan) -> TracksReport:
    spec, options = plan.spec, plan.options
    names = ["subtitles.srt", "subtitles.vtt", "subtitles.ass"]
    traditional = translations = None
    if options.hant is not None and spec.language == "zh":
        names += [f"subtitles.zh-Hant.{ext}" for ext in ("srt", "vtt", "ass")]
        traditional = Traditional(
            variant=options.hant,
            chosen_by="voice" if plan.traditional_by_voice else "options",
            burned_in=options.burn_in_script == "hant",
        )
    if any(s.translation for s in spec.segments) or spec.qualifier_translations:
        names += ["subtitles.en.srt", "subtitles.en.vtt"]
        translations = Translations(
            segments_without=[i for i, s in enumerate(spec.segments, 1) if not s.translation],
            qualifiers_without=[
                i
                for i in range(1, len(spec.qualifiers) + 1)
                if i > len(spec.qualifier_translations)
            ],
        )
    return TracksReport(names, traditional, translations)


@dataclass
class Rendered:
    """A finished job: the manifest (deterministic, written as manifest.json) and the
    wall-clock time each stage took (not in the manifest, so re-runs are byte-identical)."""

    manifest: Manifest
    timings: dict[str, float]

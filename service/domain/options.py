"""A render's options: the per-render choices that are not part of the script (CLI flags, the
API's ``options``), including the loudness target and the job preset they may start from."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

from service.domain.errors import InputError
from service.domain.fields import Model as _Model
from service.domain.fields import check_speakers, loc_path
from service.domain.lexicons import MAX_PER_JOB, LexiconId, LexiconRef
from service.domain.style import StyleRef
from service.domain.wire import JsonObject, JsonObjectField

Engine = Literal["auto", "edge", "espeak", "kokoro", "fastspeech2"]
OnOverflow = Literal["fail", "squeeze", "extend"]
Export = Literal["otio", "fcpxml", "fcp7", "edl"]  # editor timelines (service/domain/edit.py)
Traditional = Literal["tw", "hk"]  # OpenCC s2twp (Taiwan phrasing) or s2hk (Hong Kong)
TraditionalChoice = Literal["tw", "hk", "none"]  # none: no track, whatever the voices
Script = Literal["hans", "hant"]  # Simplified or Traditional Chinese
Captions = Literal["static", "highlight", "reveal", "box", "pop"]  # word by word (looks.py)
OnMismatch = Literal["warn", "retry", "fail"]  # the speech check's flag (pipeline/listen.py)

# Integrated loudness targets a master may ask for (LUFS) and true-peak ceilings (dBTP): from
# EBU R128's -23 down to the loudest a streaming platform plays without turning it down.
MIN_LUFS, MAX_LUFS = -31.0, -9.0
MIN_PEAK, MAX_PEAK = -9.0, 0.0
PASS_LU = 0.5  # a master within this many LU of its target passes


class LoudnessTarget(_Model):
    """The master's loudness as a job asks for it: its integrated target, its true-peak
    ceiling and, optionally, the widest loudness range (EBU Tech 3342) that passes. A field
    left out is the preset's, else the service's (NARRATE_TARGET_LUFS, NARRATE_TRUE_PEAK_DB)."""

    target_lufs: float | None = Field(
        None, ge=MIN_LUFS, le=MAX_LUFS, description="integrated loudness, LUFS"
    )
    true_peak_dbtp: float | None = Field(
        None, ge=MIN_PEAK, le=MAX_PEAK, description="true-peak ceiling, dBTP"
    )
    lra_max: float | None = Field(
        None, ge=1, le=40, description="largest loudness range (LU) that passes; none: any"
    )

    def over(self, lufs: float, peak: float) -> MasterLoudness:
        """This target with the service's figures for what it leaves out."""
        return MasterLoudness(
            target_lufs=lufs if self.target_lufs is None else self.target_lufs,
            true_peak_dbtp=peak if self.true_peak_dbtp is None else self.true_peak_dbtp,
            lra_max=self.lra_max,
        )


class MasterLoudness(_Model):
    """A job's loudness target as resolved at the door: every figure known."""

    target_lufs: float
    true_peak_dbtp: float
    lra_max: float | None = None


MAX_MASTERS = 4  # masters one job may make
MASTER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")  # also a folder: masters/<name>/
# What a master may set: the finishing side (its mix, its subtitles, its picture). The rest of
# the options change what is synthesized and fitted, or the job as a whole: one for all masters.
MASTER_FIELDS = (
    "loudness",
    "style",
    "burn_in",
    "screen_text",
    "music_level",
    "music_duck",
    "original_audio",
    "audio_only",
    "traditional",
    "burn_in_script",
    "captions",
)
_JOB_ONLY = {
    "engine": "changes the voice, and synthesis runs once for every master",
    "voice": "changes the voice, and synthesis runs once for every master",
    "speakers": "changes the voices, and synthesis runs once for every master",
    "on_overflow": "changes the fit, which runs once for every master",
    "extend_video": "changes the timeline, which is one for every master",
    "exports": "belongs to the job as a whole (the timelines are made once)",
    "webhook_url": "belongs to the job as a whole",
    "masters": "belongs to the job (a master holds no masters)",
    "check_speech": "checks the synthesis, which runs once for every master",
    "on_mismatch": "checks the synthesis, which runs once for every master",
    "lexicons": "changes what is spoken, and synthesis runs once for every master",
}


class MasterOptions(_Model):
    """One master of a job (``masters``): its name (its files are masters/<name>/...), a
    preset and/or its own finishing fields, over the job's options. Synthesis, fit and cue
    timing are the job's, once for all its masters: a master may not set what changes them."""

    name: str = Field(
        description="1-32 lowercase letters, digits, '-' or '_': its files are masters/<name>/...",
    )
    preset: str | None = Field(
        None, description="a job preset whose finishing fields this master takes"
    )
    preset_values: JsonObjectField | None = Field(
        None, description="the preset's values as applied, recorded at submission"
    )
    loudness: LoudnessTarget | None = None
    style: StyleRef = None
    burn_in: bool | None = None
    screen_text: bool | None = None
    music_level: float | None = Field(None, ge=-40, le=0)
    music_duck: float | None = Field(None, ge=10, le=40)
    original_audio: Literal["drop", "mix"] | None = None
    audio_only: bool | None = Field(None, description="this master has no video.mp4")
    traditional: TraditionalChoice | None = None
    burn_in_script: Script | None = None
    captions: Captions | None = None
    # Refused with a reason (so the 422 names masters[i].<field>), never in the schema nor in
    # a dump (a stored job's options validate again).
    engine: SkipJsonSchema[Any] = Field(None, exclude=True)
    voice: SkipJsonSchema[Any] = Field(None, exclude=True)
    speakers: SkipJsonSchema[Any] = Field(None, exclude=True)
    on_overflow: SkipJsonSchema[Any] = Field(None, exclude=True)
    extend_video: SkipJsonSchema[Any] = Field(None, exclude=True)
    exports: SkipJsonSchema[Any] = Field(None, exclude=True)
    webhook_url: SkipJsonSchema[Any] = Field(None, exclude=True)
    masters: SkipJsonSchema[Any] = Field(None, exclude=True)
    check_speech: SkipJsonSchema[Any] = Field(None, exclude=True)
    on_mismatch: SkipJsonSchema[Any] = Field(None, exclude=True)
    lexicons: SkipJsonSchema[Any] = Field(None, exclude=True)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not MASTER_NAME.match(v):
            raise ValueError(
                f"{v!r:.40} is not a master name: 1-32 lowercase letters, digits, '-' or '_', "
                "starting with a letter or digit"
            )
        return v

    @field_validator(*_JOB_ONLY, mode="before")
    @classmethod
    def _job_only(cls, v: Any, info: ValidationInfo) -> Any:
        if v is None:
            return v
        field = info.field_name or ""
        raise ValueError(
            f"{field} {_JOB_ONLY[field]}: set it in the job's options, not in a master"
        )

    def own(self) -> JsonObject:
        """The finishing fields it sets itself, as JSON (a None is not set: a stored job's
        options hold every field): options JSON, merged over the job's then validated."""
        fields = set(MASTER_FIELDS)
        return self.model_dump(mode="json", exclude_unset=True, exclude_none=True, include=fields)


class RenderOptions(_Model):
    """Per-render choices that are not part of the script itself (CLI flags / API options).
    ``preset`` names a job preset whose values apply under the ones given here."""

    preset: str | None = Field(
        None, description="a job preset (`narrate presets`, /v1/presets); these options win"
    )
    preset_values: JsonObjectField | None = Field(
        None,
        description="the preset's values as applied, recorded at submission: a job that "
        "carries them keeps them (a later edit of the preset does not change it)",
    )
    engine: Engine | None = None
    voice: str | None = None
    speakers: dict[str, str] | None = Field(
        None, max_length=20, description="speaker name -> voice id, over the script's own"
    )
    on_overflow: OnOverflow | None = None
    burn_in: bool = False
    original_audio: Literal["drop", "mix"] = "drop"
    extend_video: bool = False
    audio_only: bool = Field(
        False, description="an audio master (podcast): a video upload is refused"
    )
    style: StyleRef = Field(None, description="overrides the script's subtitle style")
    screen_text: bool | None = Field(None, description="overrides the script's screen_text")
    captions: Captions | None = Field(
        None,
        description="overrides the style's captions: the word being spoken in the highlight "
        "colour ('highlight'), on a box ('box'), popping in ('pop'); 'reveal' (ASS, burn-in)",
    )
    music_level: float = Field(
        -8.0, ge=-40, le=0, description="the music bed's loudness, dB relative to the speech"
    )
    music_duck: float = Field(12.0, ge=10, le=40, description="dB the music goes down under speech")
    loudness: LoudnessTarget | None = Field(
        None, description="the master's loudness target; default NARRATE_TARGET_LUFS"
    )
    webhook_url: str | None = Field(
        None,
        max_length=2000,
        description="an http(s) URL told when this job ends (job.succeeded, job.failed, "
        "job.canceled), signed with the tenant's default webhook secret",
    )

    traditional: TraditionalChoice | None = Field(
        None,
        description="also write subtitles.zh-Hant.srt/.vtt/.ass, converted from the Simplified "
        "track by OpenCC: tw (Taiwan characters and phrasing) or hk (Hong Kong); none: no "
        "Traditional track; default: by the voice's locale for a zh job (zh-TW -> tw, "
        "zh-HK -> hk), else none",
    )
    burn_in_script: Script = Field(
        "hans",
        description="which Chinese script the video shows (burned in with burn_in, and its "
        "embedded subtitle track): hans (Simplified) or hant (the Traditional track)",
    )
    masters: list[MasterOptions] = Field(
        [],
        description=f"several masters from one render (at most {MAX_MASTERS}): each its own "
        "mix, subtitles and video under masters/<name>/; synthesis and fit run once",
    )

    check_speech: bool | None = Field(
        None,
        description="transcribe each segment offline and compare it with the script "
        "(manifest speech_check); default on (the service's NARRATE_SPEECH_CHECK)",
    )
    on_mismatch: OnMismatch = Field(
        "warn",
        description="a segment the check flags: warn (speech.mismatch), retry (the next voice "
        "of its chain, else a slower rate; the better reading kept) or fail the job",
    )
    lexicons: list[LexiconId | LexiconRef] = Field(
        [],
        max_length=MAX_PER_JOB,
        description="your pronunciation dictionaries (/v1/lexicons), by id or {id, version}: "
        "applied over the shipped lexicon, under the script's own pronunciations, the later "
        "over the earlier; an id alone is the latest version, recorded as {id, version} when "
        "the job is accepted (a re-render reads the same version)",
    )
    exports: list[Export] = Field(
        [],
        max_length=4,
        description="editor timelines to write: otio (timeline.otio), fcpxml (timeline.fcpxml), "
        "fcp7 (timeline.xml), edl (timeline.edl); with any, segments/NN.wav and "
        "timeline-package.zip (the timelines with their media)",
    )

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url(cls, v: str | None) -> str | None:
        from service.domain.webhooks import check_url

        try:
            return None if v is None else check_url(v)
        except InputError as exc:
            raise ValueError(str(exc)) from None

    @property
    def hant(self) -> Traditional | None:
        """The Traditional track's variant; None: the job has none."""
        return None if self.traditional == "none" else self.traditional

    @field_validator("masters")
    @classmethod
    def _masters(cls, v: list[MasterOptions]) -> list[MasterOptions]:
        if len(v) > MAX_MASTERS:
            raise ValueError(f"{len(v)} masters, over the limit of {MAX_MASTERS} a job")
        return v

    @field_validator("exports")
    @classmethod
    def _exports(cls, v: list[Export]) -> list[Export]:
        return list(dict.fromkeys(v))  # each once, in the order asked

    @field_validator("speakers")
    @classmethod
    def _speakers(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        return None if v is None else check_speakers(v)


def options_error(errors: list[Any], what: str = "options") -> InputError:
    """The first of pydantic's errors on job options, naming the field as a path
    (``options masters[0].engine: ...``), with ``loc`` under ``options``."""
    first = errors[0]
    where = loc_path(tuple(first["loc"]))
    msg = str(first["msg"]).removeprefix("Value error, ")
    return InputError(
        f"{what}{' ' + where if where else ''}: {msg}", loc=("options", *first["loc"])
    )

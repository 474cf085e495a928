"""The job spec: one pydantic model that both the Markdown script and JSON submissions become.

Validation happens here, at the door, so a worker never meets a bad value halfway through.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypedDict

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from service.domain.emphasis import spans_of, strip_marks
from service.domain.errors import ScriptError, validation_error
from service.domain.fields import (
    SPEAKER_NAME,
    VOICE_ID,
    check_rate,
    check_speakers,
    clean,
    lines_of,
    matching,
    one_line,
    paragraph,
    plain,
    single,
)
from service.domain.fields import Model as _Model
from service.domain.options import Engine
from service.domain.options import LoudnessTarget as LoudnessTarget
from service.domain.options import RenderOptions as RenderOptions
from service.domain.spec_options import EMPHASIS_FIELD, check_looks, emphasis_items
from service.domain.spec_options import FitOptions as FitOptions
from service.domain.spec_options import Hook as Hook
from service.domain.spec_options import SubtitleOptions as SubtitleOptions
from service.domain.speech.lexicon import MAX_ENTRIES, LexiconError, parse_entries
from service.domain.style import StyleRef, StyleSpec

Language = Literal["zh", "en"]

MAX_TEXT = 2000  # characters in one segment: ~6 minutes of speech, far beyond any real segment
MAX_SECONDS = 600.0
MAX_SEGMENTS = 1000  # with a 1 h timeline: 3.6 s a segment on average
MAX_SHORT_TEXT = 500
MAX_TRANSLATION = 4000  # characters of a segment's translation: English runs longer than hanzi
# Hard ceiling on any time in a spec (a day), so every time is a finite number of
# milliseconds; the job's whole timeline is held to the lower NARRATE_MAX_TIMELINE at the door.
MAX_TIME = 24 * 3600.0

# edge-style pitch: a signed shift in Hz (rate and volume: fields.check_rate).
_PITCH = re.compile(r"^[+-](\d{1,3})Hz$")
MAX_PITCH_HZ = 50
MAX_SPEAKERS = 20
_NAME, _VOICE_ID = SPEAKER_NAME, VOICE_ID

DEFAULT_MAX_PACE: dict[str, float] = {"zh": 7.5, "en": 6.0}
DEFAULT_LINE_CHARS: dict[str, int] = {"zh": 16, "en": 42}


class Segment(_Model):
    """One narration segment. Besides its text and seconds: how it is spoken, its voice
    (directly or through a job speaker) and a rate/pitch/volume preference, edge-style
    strings; the rate is where native-rate fitting starts, not where it must end."""

    text: str
    seconds: float = Field(gt=0, le=MAX_SECONDS)
    label: str | None = None
    start: float | None = Field(None, ge=0, le=MAX_TIME)
    speaker: str | None = Field(None, description="a name from the job's speakers")
    voice: str | None = Field(None, description="a voice id from the catalog (any engine)")
    rate: str | None = Field(None, description="starting rate, e.g. '+10%' (fitting decides)")
    pitch: str | None = Field(None, description="pitch shift, e.g. '-2Hz'")
    volume: str | None = Field(None, description="volume change, e.g. '-10%'")
    translation: str | None = Field(
        None,
        description="the segment's English translation, as supplied (never machine-made): "
        "shown under its Chinese, split across the segment's cues, and in subtitles.en.*",
    )
    emphasis: list[str | tuple[int, int]] = EMPHASIS_FIELD

    _marks = model_validator(mode="before")(emphasis_items)

    @property
    def emphasis_spans(self) -> tuple[tuple[int, int], ...]:
        """The emphasised spans of the text (validated: they are found and apart)."""
        return spans_of(self.text, self.emphasis)

    _speaker = field_validator("speaker")(
        matching(_NAME, "must be 1-40 characters without spaces or separators")
    )
    _voice = field_validator("voice")(
        matching(_VOICE_ID, "is not a voice id (letters, digits, '-', '_', '.', '+')")
    )

    @field_validator("rate")
    @classmethod
    def _rate_field(cls, v: str | None) -> str | None:
        return check_rate(v, "rate")

    @field_validator("volume")
    @classmethod
    def _volume(cls, v: str | None) -> str | None:
        return check_rate(v, "volume")

    @field_validator("pitch")
    @classmethod
    def _pitch(cls, v: str | None) -> str | None:
        if v is None:
            return None
        m = _PITCH.match(v.strip())
        if not m or int(m.group(1)) > MAX_PITCH_HZ:
            raise ValueError(f"must be a signed shift in Hz within ±{MAX_PITCH_HZ}, such as '-2Hz'")
        return f"{int(v.strip()[:-2]):+d}Hz"

    @model_validator(mode="after")
    def _one_voice(self) -> Segment:
        if self.speaker and self.voice:
            raise ValueError("name a speaker or a voice, not both")
        return self

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        strip_marks(v)  # a '**' left here never closed
        return clean(v, MAX_TEXT)

    @field_validator("emphasis")
    @classmethod
    def _emphasis(cls, v: list[Any], info: ValidationInfo) -> list[Any]:
        if v and isinstance(info.data.get("text"), str):
            spans_of(info.data["text"], v)
        return v

    @field_validator("translation")
    @classmethod
    def _translation(cls, v: str | None) -> str | None:
        return paragraph(v, MAX_TRANSLATION)

    @field_validator("label")
    @classmethod
    def _label(cls, v: str | None) -> str | None:
        v = (v or "").strip()
        return clean(v, 100) if v else None


class Overlay(_Model):
    text: str
    start: float = Field(ge=0, le=MAX_TIME)
    end: float = Field(gt=0, le=MAX_TIME)

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        return clean(lines_of(v), MAX_SHORT_TEXT)  # one item a line (see overlay_cues)

    @model_validator(mode="after")
    def _order(self) -> Overlay:
        if self.end <= self.start:
            raise ValueError(f"end {self.end:g} must be after start {self.start:g}")
        return self


class Shot(_Model):
    index: int = Field(ge=0)
    name: str = ""
    start: float = Field(ge=0, le=MAX_TIME)
    end: float = Field(ge=0, le=MAX_TIME)
    screen_text: str = ""
    elements: str = ""
    motion: str = ""

    @field_validator("name", "screen_text", "elements", "motion")
    @classmethod
    def _fields(cls, v: str) -> str:
        return plain(v, MAX_SHORT_TEXT)


Qualifier = Annotated[str, Field(min_length=1)]


class JobSpec(_Model):
    """Everything one narration job needs; the JSON Schema of this model is published."""

    title: str = ""
    language: Language = "zh"
    voice: str | None = None
    engine: Engine = "auto"
    segments: list[Segment] = Field(min_length=1, max_length=MAX_SEGMENTS)
    qualifiers: list[Qualifier] = Field(default_factory=list, max_length=50)
    qualifier_translations: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="each qualifier's English translation, in order (as many as qualifiers)",
    )
    overlays: list[Overlay] = Field(default_factory=list, max_length=200)
    shots: list[Shot] = Field(default_factory=list, max_length=200)
    qualifier_display: Literal["one-by-one", "accumulate"] = Field(
        "one-by-one",
        description="the qualifiers on the risk card: one after another, or each added "
        "under the ones before until the card ends",
    )
    screen_text: bool | None = Field(
        None,
        description="show each shot's 屏幕文字 as its own layer (title cards, captions); "
        "default: with burned-in subtitles only",
    )
    speakers: dict[str, str] = Field(
        default_factory=dict,
        max_length=MAX_SPEAKERS,
        description="speaker name -> voice id; segments name a speaker instead of a voice",
    )
    fit: FitOptions = FitOptions()
    subtitles: SubtitleOptions = SubtitleOptions()
    style: StyleRef = Field(
        None,
        description="subtitle style: a preset name ('vertical-safe') or {preset, narration, "
        "qualifiers, screen_text} with per-layer overrides",
    )
    hook: Hook | None = Field(
        None, description="a hook title drawn large over the first seconds: {text, seconds}"
    )
    pronunciations: dict[str, str] = Field(
        default_factory=dict,
        max_length=MAX_ENTRIES,
        description=(
            "word -> pinyin (tone marks or numbers, e.g. 'háng', 'dang4') or a respelling "
            "(e.g. 'G R P O'); matches whole words; overrides the shipped lexicon"
        ),
    )

    @field_validator("pronunciations")
    @classmethod
    def _pronunciations(cls, v: dict[str, str]) -> dict[str, str]:
        try:
            entries = parse_entries(v)
        except LexiconError as exc:
            raise ValueError(str(exc)) from None
        return {e.word: e.value for e in entries.values()}

    @field_validator("speakers")
    @classmethod
    def _speakers(cls, v: dict[str, str]) -> dict[str, str]:
        return check_speakers(v)

    @model_validator(mode="after")
    def _known_speakers(self) -> JobSpec:
        for i, seg in enumerate(self.segments, 1):
            if seg.speaker and seg.speaker not in self.speakers:
                known = ", ".join(self.speakers) or "none are defined"
                raise ValueError(
                    f"segment {i} speaker {seg.speaker!r} is not one of the job's speakers "
                    f"({known})"
                )
        return self

    def rendered_with(self, options: RenderOptions) -> JobSpec:
        """This spec with a render's engine, voice, speakers and overflow policy in force."""
        update: SpecUpdate = {}
        if options.engine:
            update["engine"] = options.engine
        if options.voice:
            update["voice"] = options.voice
        if options.speakers:
            update["speakers"] = {**self.speakers, **options.speakers}
        if options.style:
            update["style"] = options.style
        if options.captions:  # over the style's own (the resolved style then carries it)
            style = update.get("style") or self.style or StyleSpec()
            update["style"] = style.model_copy(update={"captions": options.captions})
        if options.on_overflow:
            update["fit"] = self.fit.model_copy(update={"on_overflow": options.on_overflow})
        return self.model_copy(update=update) if update else self

    def shows_screen_text(self, options: RenderOptions) -> bool:
        """Shot text is on when asked for (option, then script), else with burn-in only:
        soft subtitle tracks are for the words spoken."""
        for choice in (options.screen_text, self.screen_text):
            if choice is not None:
                return choice
        return options.burn_in

    def voice_of(self, index: int) -> str | None:
        """The voice a segment asks for (its own, its speaker's), or None for the job's."""
        seg = self.segments[index]
        if seg.speaker:
            return self.speakers[seg.speaker]
        return seg.voice

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        return single(v, MAX_SHORT_TEXT)

    @field_validator("qualifiers", "qualifier_translations")
    @classmethod
    def _qualifiers(cls, v: list[str]) -> list[str]:
        return [clean(one_line(q), MAX_SHORT_TEXT) for q in v]  # one item of the card each

    @model_validator(mode="after")
    def _looks(self) -> JobSpec:
        check_looks(self.segments, self.hook, self.language, self.line_chars)
        return self

    @model_validator(mode="after")
    def _translations_match(self) -> JobSpec:
        given, wanted = len(self.qualifier_translations), len(self.qualifiers)
        if given and given != wanted:
            raise ValueError(
                f"qualifier_translations has {given} item(s) for {wanted} qualifier(s): "
                "give one per qualifier, in order"
            )
        return self

    @property
    def max_pace(self) -> float:
        return self.fit.max_pace or DEFAULT_MAX_PACE[self.language]

    @property
    def line_chars(self) -> int:
        return self.subtitles.max_chars_per_line or DEFAULT_LINE_CHARS[self.language]


def spec_from_data(data: Any) -> JobSpec:
    """Validate plain data into a JobSpec, turning pydantic's errors into one clear ScriptError
    (the first; the others, one per field, in its ``also``)."""
    try:
        return JobSpec.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc.errors()) from None


def spec_from_json(text: str) -> JobSpec:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(
            f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return spec_from_data(data)


def json_schema() -> dict[str, Any]:  # a JSON Schema document (wire format), as pydantic types it
    """The job spec's JSON Schema (docs/jobspec.schema.json): a JSON document, as pydantic
    writes it."""
    return JobSpec.model_json_schema()


class SpecUpdate(TypedDict, total=False):
    """What a render's options set on its spec (``JobSpec.rendered_with``)."""

    engine: Engine
    voice: str
    speakers: dict[str, str]
    style: StyleSpec
    fit: FitOptions

"""Subtitle styles (pure): the style fields of a job spec (per-layer looks, a preset to
override), and the presets (data, voices/styles.json) merged with a job's overrides into the
concrete look of each layer, which the ASS/VTT writers and the burn-in read. The file itself
is read by service/adapters/files/styles.py."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired

from pydantic import BeforeValidator, Field, TypeAdapter, field_validator, model_validator
from typing_extensions import TypedDict  # pydantic validates LookData below 3.12

from service.domain.errors import ScriptError
from service.domain.fields import Model as _Model
from service.domain.fields import matching

_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$")
# A font name goes into an ASS style line (comma-separated) and a CSS string: no commas,
# quotes, braces or backslashes.
_FONT = re.compile(r"^[^,;\"'{}\\<>\x00-\x1f]{1,80}$")
_PRESET = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}\Z")
MAX_STYLE_NAME = 40


class LayerStyle(_Model):
    """How one subtitle layer looks. Sizes are fractions of the frame height, horizontal
    margins fractions of its width, so a style means the same on any frame; unset fields
    come from the preset."""

    font: str | None = Field(None, description="font family, e.g. 'Noto Sans CJK SC'")
    size: float | None = Field(None, ge=0.01, le=0.2, description="text height / frame height")
    color: str | None = Field(None, description="text colour, #RRGGBB or #RRGGBBAA (AA: opacity)")
    outline_color: str | None = None
    outline: float | None = Field(None, ge=0, le=0.02, description="outline / frame height")
    shadow_color: str | None = None
    shadow: float | None = Field(None, ge=0, le=0.02, description="shadow offset / frame height")
    bold: bool | None = None
    margin: float | None = Field(
        None,
        ge=0,
        le=0.45,
        description="distance from the frame edge the layer sits at, / frame height: the bottom "
        "for narration, the top for qualifiers and screen text",
    )
    margin_left: float | None = Field(None, ge=0, le=0.4, description="/ frame width")
    margin_right: float | None = Field(None, ge=0, le=0.4, description="/ frame width")
    highlight_color: str | None = Field(
        None, description="the word being spoken, with captions 'highlight' or 'pop' (narration)"
    )
    emphasis_color: str | None = Field(
        None, description="authored emphasis (**关键词**, a segment's emphasis) (narration)"
    )
    emphasis_scale: float | None = Field(
        None, ge=1, le=1.5, description="authored emphasis's size, times the text's (narration)"
    )
    box_color: str | None = Field(
        None, description="the box under the word being spoken, with captions 'box' (narration)"
    )

    @field_validator(
        "color", "outline_color", "shadow_color", "highlight_color", "emphasis_color", "box_color"
    )
    @classmethod
    def _color(cls, v: str | None) -> str | None:
        if v is not None and not _COLOR.match(v):
            raise ValueError("must be a colour '#RRGGBB' or '#RRGGBBAA'")
        return v.upper() if v else v

    _font = field_validator("font")(
        matching(_FONT, "must be a font family name: 1-80 characters, no , ; quotes or {}")
    )

    @model_validator(mode="after")
    def _room(self) -> LayerStyle:
        if (self.margin_left or 0) + (self.margin_right or 0) > 0.6:
            raise ValueError("margin_left + margin_right leave under 40 % of the width")
        return self


class StyleSpec(_Model):
    """A subtitle style: a preset (see `narrate styles`) with per-layer overrides."""

    preset: str | None = Field(None, description="the preset these fields override; 'default'")
    narration: LayerStyle = LayerStyle()
    qualifiers: LayerStyle = LayerStyle()
    screen_text: LayerStyle = LayerStyle()
    translation: LayerStyle = Field(
        LayerStyle(),
        description="the supplied translation's lines in a bilingual cue (margin unused: "
        "they sit with the narration)",
    )
    hook: LayerStyle = Field(
        LayerStyle(),
        description="the hook title over the first seconds (margin: where it would sit from "
        "the top; it moves clear of what else shows)",
    )
    translation_position: Literal["below", "above"] | None = Field(
        None, description="the translation's lines below the Chinese (default) or above it"
    )
    captions: Literal["static", "highlight", "reveal", "box", "pop"] | None = Field(
        None,
        description="narration word by word: 'highlight' (the word being spoken in the "
        "highlight colour), 'reveal' (words appear as spoken), 'box' (the word being spoken "
        "on a filled box in the box colour), 'pop' (the word being spoken enters at 120 % "
        "and settles to its size in 120 ms, in the highlight colour); default 'static'",
    )

    _preset = field_validator("preset")(
        matching(_PRESET, "must be a preset name such as 'vertical-safe'")
    )


def _by_name(v: object) -> object:
    return {"preset": v} if isinstance(v, str) else v


# A job's, a render's or a master's ``style``: a preset's name stands for {"preset": name}.
StyleRef = Annotated[StyleSpec | None, BeforeValidator(_by_name)]

CAPTIONS = ("static", "highlight", "reveal", "box", "pop")
Layer = Literal["narration", "qualifiers", "screen_text", "translation", "hook"]
LAYERS: tuple[Layer, ...] = ("narration", "qualifiers", "screen_text", "translation", "hook")


class LookData(TypedDict, total=False):
    """A layer's look as a styles file holds it and the manifest records it (LayerStyle's
    fields: a preset's layer sets some, a resolved one every one)."""

    font: str
    size: float
    color: str
    outline_color: str
    outline: float
    shadow_color: str
    shadow: float
    bold: bool
    margin: float
    margin_left: float
    margin_right: float
    highlight_color: str
    emphasis_color: str
    emphasis_scale: float
    box_color: str


class PresetData(TypedDict, total=False):
    """A style preset of voices/styles.json."""

    description: str
    narration: LookData
    qualifiers: LookData
    screen_text: LookData
    translation: LookData
    hook: LookData
    translation_position: str
    captions: str


class StylesData(TypedDict, total=False):
    """voices/styles.json."""

    presets: dict[str, PresetData]


class AppliedStyle(TypedDict):
    """The style as applied, for the manifest: the preset, every layer's look, the rest."""

    preset: str
    narration: NotRequired[LookData]
    qualifiers: NotRequired[LookData]
    screen_text: NotRequired[LookData]
    translation: NotRequired[LookData]
    hook: NotRequired[LookData]
    translation_position: NotRequired[str]
    captions: NotRequired[str]


_LOOK = TypeAdapter(LookData)
DEFAULT_PRESET = "default"
DEFAULT_FONT = "Noto Sans CJK SC"


def _layer(
    size: float, color: str, outline: float, shadow: float, bold: bool, margin: float, side: float
) -> LookData:
    """A built-in layer: the default font, a black outline, a half-transparent shadow."""
    return {
        "font": DEFAULT_FONT,
        "size": size,
        "color": color,
        "outline_color": "#000000",
        "outline": outline,
        "shadow_color": "#00000080",
        "shadow": shadow,
        "bold": bold,
        "margin": margin,
        "margin_left": side,
        "margin_right": side,
    }


# The built-in preset every other one starts from (on a 1080x1920 frame: narration 64 px
# with a 3 px outline, 230 px up; qualifiers 44 px, red, 154 px down; screen text 77 px bold).
BASE: PresetData = {
    "description": "white narration at the bottom, qualifiers in warning red at the top, "
    "bold screen text below them",
    "narration": {
        **_layer(0.0333, "#FFFFFF", 0.0015625, 0.0, False, 0.12, 0.0093),
        "highlight_color": "#FFD60A",
        "emphasis_color": "#FF9F0A",
        "emphasis_scale": 1.15,
        "box_color": "#FF2D55",
    },
    "qualifiers": _layer(0.0229, "#FF3B30", 0.0010417, 0.0, False, 0.08, 0.0093),
    "screen_text": _layer(0.04, "#FFFFFF", 0.0021, 0.001, True, 0.2, 0.05),
    # The hook title: 106 px bold on a 1080x1920 frame, a third of the way down.
    "hook": _layer(0.055, "#FFFFFF", 0.003, 0.0015, True, 0.3, 0.06),
    # A bilingual cue's English: smaller than the Chinese (46 vs 64 px), so 42 characters
    # fit the width a 16-hanzi line takes.
    "translation": _layer(0.024, "#FFFFFF", 0.0012, 0.0, False, 0.12, 0.0093),
}


@dataclass(frozen=True, slots=True)
class Look:
    """One layer's resolved look; every field set (see LayerStyle for units)."""

    font: str
    size: float
    color: str
    outline_color: str
    outline: float
    shadow_color: str
    shadow: float
    bold: bool
    margin: float
    margin_left: float
    margin_right: float
    highlight_color: str = "#FFD60A"
    emphasis_color: str = "#FF9F0A"
    emphasis_scale: float = 1.15
    box_color: str = "#FF2D55"


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    narration: Look
    qualifiers: Look
    screen_text: Look
    applied: AppliedStyle  # for the manifest
    translation: Look | None = None  # None: the default preset's
    translation_above: bool = False
    captions: str = "static"  # CAPTIONS (see subtitles/karaoke.py)
    hook: Look | None = None  # None: the default preset's

    @property
    def translation_look(self) -> Look:
        return self.translation or DEFAULT_TRANSLATION

    @property
    def hook_look(self) -> Look:
        return self.hook or DEFAULT_HOOK


def rgba(color: str) -> tuple[int, int, int, int]:
    """'#RRGGBB[AA]' -> (r, g, b, opacity 0-255)."""
    h = color.lstrip("#")
    a = int(h[6:8], 16) if len(h) == 8 else 255
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), a


def presets_table(data: StylesData | None) -> dict[str, PresetData]:
    """The built-in default and the presets of a styles file's data."""
    return {DEFAULT_PRESET: BASE, **((data or {}).get("presets", {}))}


def resolve(data: StylesData | None, spec: StyleSpec | None, font: str | None = None) -> Style:
    """The default preset, under the named preset, under the job's fields. ``font`` (the
    machine's configured font) replaces the default preset's font, not a chosen one."""
    table = presets_table(data)
    spec = spec or StyleSpec()
    name = spec.preset or DEFAULT_PRESET
    if name not in table:
        near = difflib.get_close_matches(name, list(table), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise ScriptError(f"unknown style preset {name!r}{hint}", "style preset")
    looks: dict[str, Look] = {}
    applied: AppliedStyle = {"preset": name}
    for layer in LAYERS:
        fields: LookData = {**table[DEFAULT_PRESET].get(layer, {})}
        if font:
            fields["font"] = font
        fields.update(table[name].get(layer, {}))
        own: LayerStyle = getattr(spec, layer)
        fields.update(_LOOK.validate_python(own.model_dump(exclude_none=True)))
        LayerStyle.model_validate(fields)  # a bad preset file fails here, not in a player
        looks[layer] = Look(**fields)
        applied[layer] = fields
    above = (spec.translation_position or table[name].get("translation_position")) == "above"
    if above:
        applied["translation_position"] = "above"
    captions = spec.captions or table[name].get("captions") or "static"
    if captions not in CAPTIONS:  # a bad preset file
        raise ScriptError(f"style preset {name!r}: unknown captions {captions!r}", "style preset")
    applied["captions"] = captions
    return Style(
        name,
        looks["narration"],
        looks["qualifiers"],
        looks["screen_text"],
        applied,
        looks["translation"],
        above,
        captions=captions,
        hook=looks["hook"],
    )


DEFAULT_TRANSLATION = Look(**BASE["translation"])
DEFAULT_HOOK = Look(**BASE["hook"])
DEFAULT_STYLE = resolve(None, None)

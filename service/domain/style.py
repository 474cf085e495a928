"""Subtitle style fields of a job spec: per-layer looks and a preset to override (pure)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator, model_validator

from service.domain.fields import Model as _Model

_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}(?:[0-9A-Fa-f]{2})?$")
# A font name goes into an ASS style line (comma-separated) and a CSS string: no commas,
# quotes, braces or backslashes.
_FONT = re.compile(r"^[^,;\"'{}\\<>\x00-\x1f]{1,80}$")
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

    @field_validator("color", "outline_color", "shadow_color")
    @classmethod
    def _color(cls, v: str | None) -> str | None:
        if v is not None and not _COLOR.match(v):
            raise ValueError("must be a colour '#RRGGBB' or '#RRGGBBAA'")
        return v.upper() if v else v

    @field_validator("font")
    @classmethod
    def _font(cls, v: str | None) -> str | None:
        if v is not None and not _FONT.match(v):
            raise ValueError("must be a font family name: 1-80 characters, no , ; quotes or {}")
        return v

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

    @field_validator("preset")
    @classmethod
    def _preset(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", v):
            raise ValueError("must be a preset name such as 'vertical-safe'")
        return v

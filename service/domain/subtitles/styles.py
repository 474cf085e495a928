"""Subtitle styles: presets (data, voices/styles.json) merged with a job's overrides into the
concrete look of each layer, which the ASS/VTT writers and the burn-in read."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from service.domain.errors import ScriptError
from service.domain.style import LayerStyle, StyleSpec

LAYERS = ("narration", "qualifiers", "screen_text")
DEFAULT_PRESET = "default"
_FONT = "Noto Sans CJK SC"
# The built-in preset every other one starts from (on a 1080x1920 frame: narration 64 px
# with a 3 px outline, 230 px up; qualifiers 44 px, red, 154 px down; screen text 77 px bold).
BASE: dict[str, Any] = {
    "description": "white narration at the bottom, qualifiers in warning red at the top, "
    "bold screen text below them",
    "narration": {
        "font": _FONT,
        "size": 0.0333,
        "color": "#FFFFFF",
        "outline_color": "#000000",
        "outline": 0.0015625,
        "shadow_color": "#00000080",
        "shadow": 0.0,
        "bold": False,
        "margin": 0.12,
        "margin_left": 0.0093,
        "margin_right": 0.0093,
    },
    "qualifiers": {
        "font": _FONT,
        "size": 0.0229,
        "color": "#FF3B30",
        "outline_color": "#000000",
        "outline": 0.0010417,
        "shadow_color": "#00000080",
        "shadow": 0.0,
        "bold": False,
        "margin": 0.08,
        "margin_left": 0.0093,
        "margin_right": 0.0093,
    },
    "screen_text": {
        "font": _FONT,
        "size": 0.04,
        "color": "#FFFFFF",
        "outline_color": "#000000",
        "outline": 0.0021,
        "shadow_color": "#00000080",
        "shadow": 0.001,
        "bold": True,
        "margin": 0.2,
        "margin_left": 0.05,
        "margin_right": 0.05,
    },
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


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    narration: Look
    qualifiers: Look
    screen_text: Look
    applied: dict[str, Any] = field(default_factory=dict, compare=False)  # for the manifest


def rgba(color: str) -> tuple[int, int, int, int]:
    """'#RRGGBB[AA]' -> (r, g, b, opacity 0-255)."""
    h = color.lstrip("#")
    a = int(h[6:8], 16) if len(h) == 8 else 255
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), a


def presets_table(data: dict[str, Any] | None) -> dict[str, Any]:
    """The built-in default and the presets of a styles file's data."""
    return {DEFAULT_PRESET: BASE, **((data or {}).get("presets", {}))}


def resolve(data: dict[str, Any] | None, spec: StyleSpec | None, font: str | None = None) -> Style:
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
    applied: dict[str, Any] = {"preset": name}
    for layer in LAYERS:
        fields: dict[str, Any] = dict(table[DEFAULT_PRESET][layer])
        if font:
            fields["font"] = font
        fields.update(table[name].get(layer, {}))
        own: LayerStyle = getattr(spec, layer)
        fields.update(own.model_dump(exclude_none=True))
        LayerStyle.model_validate(fields)  # a bad preset file fails here, not in a player
        looks[layer] = Look(**fields)
        applied[layer] = fields
    return Style(name, looks["narration"], looks["qualifiers"], looks["screen_text"], applied)


DEFAULT_STYLE = resolve(None, None)

"""Job presets: a named set of render options (engine, voice or speakers, style, burn-in, screen
text, music levels, fit policy, loudness target, audio only) that a job names and overrides.

Shipped ones are voices/presets.json; a tenant saves its own (/v1/presets). Applying one
records its values in the options (``preset_values``), so a job is resolved once, at the door:
a later edit or removal of the preset changes no job made from it, nor its re-render."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import Field, ValidationError, field_validator

from service.domain.errors import InputError
from service.domain.fields import loc_path, one_line, plain
from service.domain.options import RenderOptions
from service.domain.wire import JsonObject

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,39}$")
MAX_SAVED = 100  # presets one tenant may save
# What a preset holds beside option values; what it may not hold (a preset names no preset).
ABOUT = frozenset({"description", "source"})
NOT_IN_A_PRESET = frozenset({"preset", "preset_values"})


class Preset(RenderOptions):
    """A job preset: render options (only those it sets apply), a description and the one-line
    source of its loudness figure."""

    description: str = Field("", max_length=300)
    source: str = Field("", max_length=300, description="where its loudness figure comes from")

    @field_validator("description", "source")
    @classmethod
    def _one_line(cls, v: str) -> str:
        return plain(one_line(v).strip(), 300)

    @field_validator("preset", "preset_values")
    @classmethod
    def _no_preset(cls, v: Any) -> Any:
        if v is not None:
            raise ValueError("a preset cannot name another preset")
        return v

    @field_validator("masters")
    @classmethod
    def _no_masters(cls, v: list[Any]) -> list[Any]:
        if v:
            raise ValueError("a preset holds no masters: a job's masters each name a preset")
        return v

    def values(self) -> JsonObject:
        """The option values it sets, as JSON (what a job records as applied): the wire
        format of options, merged key by key under a job's (merged_values)."""
        skip = set(ABOUT | NOT_IN_A_PRESET)
        return self.model_dump(mode="json", exclude_unset=True, exclude=skip)


def check_name(name: str) -> str:
    if not NAME.match(name):
        raise InputError(
            f"preset name {name!r} must be 1-40 lowercase letters, digits, '.', '-' or '_'"
        )
    return name


def preset_from_data(data: Any, what: str = "preset") -> Preset:
    """Validate plain data into a Preset, as job options are: the error names the field."""
    if not isinstance(data, dict):
        raise InputError(f"{what}: expected a JSON object of job options")
    try:
        return Preset.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = loc_path(tuple(first["loc"]))
        msg = str(first["msg"]).removeprefix("Value error, ")
        raise InputError(f"{what}{' ' + where if where else ''}: {msg}") from None


def merged_values(under: JsonObject, over: JsonObject) -> JsonObject:
    """``over`` on ``under``, objects merged key by key (a job's ``loudness.target_lufs``
    keeps the preset's true-peak ceiling). Options JSON (wire format), validated after."""
    out = dict(under)
    for key, value in over.items():
        below = out.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            out[key] = merged_values(below, value)
        else:
            out[key] = value
    return out


def apply_preset(options: RenderOptions, preset: Preset, name: str | None) -> RenderOptions:
    """``options`` over the preset's values: every field the options set wins."""
    values = preset.values()
    given = options.model_dump(mode="json", exclude_unset=True, exclude=set(NOT_IN_A_PRESET))
    merged = merged_values(values, given)
    return RenderOptions.model_validate({**merged, "preset": name, "preset_values": values})


def resolve(
    options: RenderOptions,
    lookup: Callable[[str], Preset | None],
    known: Callable[[], list[str]] = list,
) -> RenderOptions:
    """The options with their preset applied, and each master's preset recorded in it.
    Options that already carry ``preset_values`` (a re-render, a job's source sent back) keep
    them: the preset is not looked up again. ``known``: the names to suggest for a miss."""

    def found(name: str, where: str, loc: tuple[str | int, ...]) -> Preset:
        preset = lookup(name)
        if preset is None:
            names = ", ".join(known())
            hint = f"known: {names}" if names else "`narrate presets`"
            raise InputError(f"{where}: no preset named {name!r} ({hint})", loc=loc)
        return preset

    if options.preset_values is not None:
        recorded = preset_from_data(options.preset_values, "options preset_values")
        options = apply_preset(options, recorded, options.preset)
    elif options.preset is not None:
        preset = found(options.preset, "options preset", ("options", "preset"))
        options = apply_preset(options, preset, options.preset)
    if not options.masters:
        return options
    masters = []
    seen: set[str] = set()
    for i, master in enumerate(options.masters):
        where = f"options masters[{i}]"
        if master.name in seen:
            raise InputError(
                f"{where}.name: {master.name!r} is used twice: each master needs its own name",
                loc=("options", "masters", i, "name"),
            )
        seen.add(master.name)
        data = master.model_dump(mode="json", exclude_unset=True)
        if master.preset_values is not None:
            data["preset_values"] = preset_from_data(
                master.preset_values, f"{where}.preset_values"
            ).values()
        elif master.preset is not None:
            preset = found(master.preset, f"{where}.preset", ("options", "masters", i, "preset"))
            data["preset_values"] = preset.values()
        masters.append(data)
    given = options.model_dump(mode="json", exclude_unset=True)
    return RenderOptions.model_validate({**given, "masters": masters})

"""JSON as a type: what a stored record or an event holds before it is a model (the shapes
the schema upgrades work on, service/domain/schemas.py)."""

from __future__ import annotations

from typing import TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"

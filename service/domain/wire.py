"""JSON as a type: what a stored record or an event holds before it is a model (the shapes
the schema upgrades work on, service/domain/schemas.py)."""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias

import pydantic
from pydantic import PlainSerializer, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"


def _an_object(value: object) -> object:
    if not isinstance(value, dict):
        raise PydanticCustomError("dict_type", "Input should be a valid dictionary")
    return dict(value)  # a copy, as a dict field's validation makes


def _as_given(value: object) -> Any:  # Any: pydantic writes it as it is, by its own types
    return value


# A JSON object a model holds as given, where a typed model would change it: checked as an
# object only (pydantic's own error), written back as it came (no 0 made 0.0, no key dropped
# or moved) and published as the plain object it always was (no JsonValue definition added
# to the OpenAPI document).
CHECK_OBJECT = PlainValidator(_an_object)
AS_GIVEN = PlainSerializer(_as_given)
OBJECT_SCHEMA = WithJsonSchema({"additionalProperties": True, "type": "object"})
# wire.JsonObject as a model's field (pydantic's own spelling of the same recursive type).
JsonObjectField = Annotated[dict[str, pydantic.JsonValue], CHECK_OBJECT, AS_GIVEN, OBJECT_SCHEMA]

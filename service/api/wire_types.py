"""The API's wire types: a free JSON object as a model's field or a tool's argument, and the
OpenAPI fragments (request bodies, response objects) the routes hand FastAPI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, TypedDict

from pydantic import BaseModel, GetPydanticSchema
from pydantic_core import core_schema

from service.domain.wire import JsonObject

# A JSON object of any keys (a job spec or options before they are validated, as the client
# wrote them): to mypy the JSON it holds; to pydantic a dict of any values (they came as
# JSON), validated and published as before. pydantic's own JsonValue would add a "JsonValue"
# definition to /openapi.json, and ours is a forward reference pydantic cannot resolve.
if TYPE_CHECKING:
    FreeObject: TypeAlias = JsonObject
else:
    FreeObject = Annotated[
        dict,
        GetPydanticSchema(
            lambda _type, _handler: core_schema.dict_schema(
                core_schema.str_schema(), core_schema.any_schema()
            )
        ),
    ]


class MediaType(TypedDict):
    """An OpenAPI media type object: the schema of one content type."""

    schema: JsonObject


class RequestBody(TypedDict):
    """An OpenAPI request body object (a route that reads its body itself publishes it)."""

    required: bool
    content: dict[str, MediaType]


class Answer(TypedDict, total=False):
    """An OpenAPI response object as FastAPI's ``responses=`` takes it: ``model`` is turned
    into the schema of its JSON."""

    description: str
    model: type[BaseModel]
    content: dict[str, JsonObject]


def answers(table: Mapping[int, Answer]) -> dict[int | str, dict[str, Any]]:
    """``table`` as FastAPI's ``responses=`` takes it (its type: a wire format of OpenAPI's
    own, response objects by status code)."""
    return {code: dict(answer) for code, answer in table.items()}


def request_body(body: RequestBody) -> dict[str, Any]:
    """``body`` as FastAPI's ``openapi_extra=`` takes it (its type: the OpenAPI operation
    object's wire format, merged over what FastAPI generates)."""
    return {"requestBody": dict(body)}

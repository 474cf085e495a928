"""JSON objects the API takes or gives as the client wrote them (a preset's options, the
studio's spec) are published and checked as free objects (service/api/wire_types.py)."""

from __future__ import annotations

from tests.support.fleet import Fleet


def test_free_objects_are_published_as_any_json_object(fleet: Fleet) -> None:
    """Typed as JSON in the code, they stay free objects in /openapi.json, their
    descriptions kept, with no definition of a JSON value of their own."""
    with fleet.client() as c:
        doc = c.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    put = doc["paths"]["/v1/presets/{name}"]["put"]["requestBody"]
    assert "JsonValue" not in schemas
    assert put["content"]["application/json"]["schema"] == {
        "type": "object",
        "additionalProperties": True,
        "description": "job options (RenderOptions, without preset) plus description, source",
        "title": "Body",
    }
    assert schemas["Rerender"]["properties"]["spec"] == {
        "type": "object",
        "additionalProperties": True,
        "description": "the edited job spec (JobSpec)",
        "title": "Spec",
    }


def test_a_preset_body_that_is_not_an_object_is_refused(fleet: Fleet) -> None:
    with fleet.client() as c:
        got = c.put("/v1/presets/mine", json=["volume", 1])
    assert got.status_code == 422

"""A response model shows its record's fields by name (service/api/schemas.py from_record)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from service.api.schemas import from_record


class Shown(BaseModel):
    id: str
    count: int
    note: str = ""


@dataclass
class Kept:
    id: str
    rules: int
    note: str


def test_the_fields_given_win_and_the_rest_are_the_records() -> None:
    assert from_record(Shown, Kept("a", 3, "n"), count=3) == Shown(id="a", count=3, note="n")


def test_a_field_the_record_lacks_is_an_error_even_with_a_default() -> None:
    @dataclass
    class Renamed:
        id: str
        comment: str

    with pytest.raises(AttributeError):
        from_record(Shown, Renamed("a", "n"), count=1)


def test_a_field_given_that_the_model_lacks_is_an_error() -> None:
    with pytest.raises(TypeError, match="no field rules"):
        from_record(Shown, Kept("a", 3, "n"), count=3, rules=3)

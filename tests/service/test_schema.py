"""schemathesis over the whole OpenAPI with two tenants' keys: no 5xx, and every response
matches the schema it is documented with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.service.conftest import Stack, start_stack

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def schema_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("schema"), workers=0)  # jobs just queue
    yield s
    s.stop()


def test_api_conforms(schema_stack: Stack) -> None:
    """Every operation, with generated requests; the pytest plugin is bypassed (it does not
    run on pytest 9), so each operation gets its own Hypothesis run here."""
    api = schemathesis.openapi.from_url(f"{schema_stack.url}/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 9
    for op in operations:
        if op.path == "/readyz":
            continue  # with no worker running it answers its documented 503, by design

        @given(case=op.as_strategy())
        @settings(
            max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case: Any) -> None:
            for tenant in ("alpha", "beta"):
                case.call_and_validate(
                    base_url=schema_stack.url,
                    headers={"Authorization": f"Bearer {schema_stack.keys[tenant]}"},
                    checks=[not_a_server_error, response_schema_conformance],
                )

        check()

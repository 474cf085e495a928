"""schemathesis over the whole OpenAPI with two tenants' keys: no 5xx, and every response
matches the schema it is documented with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.integration.stack.test_hardening import hostile_bodies
from tests.support.stack import Stack, start_stack


@pytest.fixture(scope="module")
def schema_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = start_stack(tmp_path_factory.mktemp("schema"), workers=0)  # jobs just queue
    yield s
    s.stop()


def test_api_conforms(schema_stack: Stack) -> None:
    """Every operation, with generated requests; the pytest plugin is bypassed (it does not
    run on pytest 9), so each operation gets its own Hypothesis run here."""
    api = schemathesis.openapi.from_url(f"{schema_stack.url}/openapi.json")
    operations = []
    for result in api.get_all_operations():
        assert isinstance(result, Ok), result  # an operation schemathesis could not read
        operations.append(result.ok())
    assert len(operations) >= 9
    for op in operations:
        if op.path == "/readyz":
            continue  # with no worker running it answers its documented 503, by design

        # 10 generated requests an operation, each sent as both tenants: every operation keeps
        # a run of its own (the known hostile bodies are explicit cases below); 25 a piece
        # cost ~40 s of a loaded host's time for little more reach.
        @given(case=op.as_strategy())
        @settings(
            max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case: Any) -> None:
            for tenant in ("alpha", "beta"):
                case.call_and_validate(
                    base_url=schema_stack.url,
                    headers={"Authorization": f"Bearer {schema_stack.keys[tenant]}"},
                    checks=[not_a_server_error, response_schema_conformance],
                )

        check()


def test_hostile_bodies_are_4xx_and_conform(schema_stack: Stack) -> None:
    """The bodies a hostile probe sent (deep nesting, lone surrogates, five kinds of broken
    multipart), as explicit schemathesis cases with the same checks, to both uploads."""
    api = schemathesis.openapi.from_url(f"{schema_stack.url}/openapi.json")
    auth = {"Authorization": f"Bearer {schema_stack.keys['alpha']}"}
    posts = [api[path]["POST"] for path in ("/v1/jobs", "/v1/lexicons")]
    for post, (what, body, ctype) in ((p, h) for p in posts for h in hostile_bodies()):
        case = post.Case(
            body=body,
            media_type="application/octet-stream",
            headers={"Content-Type": ctype, **auth},
        )
        response = case.call(base_url=schema_stack.url, headers={"Content-Type": ctype, **auth})
        assert 400 <= response.status_code < 500, (what, response.status_code, response.text)
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

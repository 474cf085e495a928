"""The contract of the tenants' key store (tests/contracts/tenant_keys.py) on a real Redis."""

from __future__ import annotations

import pytest

from tests.contracts.tenant_keys import *  # noqa: F403 (the suite: its tests and fixture)


@pytest.fixture
def backend() -> str:
    return "redis"

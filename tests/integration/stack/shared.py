"""The session's shared stack (conftest.py starts it): its limits, and tenants of a test's
own, so a test on it needs no clean Redis and never sees another module's jobs."""

from __future__ import annotations

import uuid

import httpx

from tests.support.stack import Stack

# The shared stack's upload limits: the tests of the limits send just past them.
MAX_VIDEO_BYTES = 3_000_000
MAX_MUSIC_BYTES = 400_000


def own_tenant(stack: Stack, prefix: str) -> httpx.Client:
    """A client of a new tenant (its key written to the stack's keys.json, which the API
    rereads when it changes): a listing of its jobs holds only what the test made."""
    tenant = f"{prefix}-{uuid.uuid4().hex[:8]}"
    key = stack.keystore().create(tenant)
    return httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {key}"}, timeout=60)

"""The timeline limit at the API's door: 422 naming the field, and no job is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.stack.shared import own_tenant
from tests.support.stack import Stack


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        (
            {"segments": [{"text": "好", "seconds": 2, "start": 1e308}]},
            "segment 1 start: Input should be less than or equal to 86400",
        ),
        (
            {"segments": [{"text": "好", "seconds": 600}] * 10},
            "segment 7 seconds: ends at 4200 s, past the timeline limit of 3600 s",
        ),
        (
            {"segments": [{"text": "好", "seconds": 2, "start": 3600}]},
            "segment 1 start: ends at 3602 s, past the timeline limit of 3600 s",
        ),
        (
            {
                "segments": [{"text": "好", "seconds": 2}],
                "overlays": [{"text": "注", "start": 0, "end": 7200}],
            },
            "overlay 1 end: ends at 7200 s",
        ),
    ],
)
def test_a_timeline_past_the_limit_is_422(
    stack: Stack, tmp_path: Path, spec: dict[str, object], needle: str
) -> None:
    with own_tenant(stack, "timeline") as c:  # its listing holds only this test's jobs
        r = c.post("/v1/jobs", json=spec)
        assert r.status_code == 422, r.text
        assert needle in r.json()["detail"][0]["msg"]
        assert c.get("/v1/jobs").json()["jobs"] == []

"""A batch's items count the segments the speech check flagged: the API's item and the
``narrate batch`` table show them."""

from __future__ import annotations

from service.api.batch_views import flagged_segments
from service.cli.batch import Table
from service.cli.wire import ItemState
from service.domain.notices import warning
from tests.support.jobs import make_job


def test_an_items_flagged_segments_come_from_its_speech_mismatch_warnings_and_the_table_counts_them() -> (
    None
):
    job = make_job("j1", "t", 0.0, n=3)
    job.warnings = [
        warning("speech.mismatch", "segment 3: heard something else", 3),
        warning("take.mismatch", "segment 2: the take does not seem to match", 2),
        warning("speech.mismatch", "segment 1: heard something else", 1),
    ]
    assert flagged_segments(job) == [1, 3]
    item: ItemState = {
        "name": "intro",
        "job": "j1",
        "status": "succeeded",
        "progress": 1.0,
        "engines": ["edge"],
        "error": None,
        "artifacts": [],
    }
    assert Table.row({**item, "flagged": [1, 3]}).endswith("edge  2 flagged")
    assert "flagged" not in Table.row({**item, "flagged": []})
    assert "flagged" not in Table.row(item)  # a service from before the speech check

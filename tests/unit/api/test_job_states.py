"""One list of job states: the API's JobStatus enum in /openapi.json is JobStatus, and the
page's constants (service/api/static/job-states.js, served at /studio/job-states.js) are
made from it."""

from __future__ import annotations

import json

from service.api.job_states import PAGE_FILE, job_states_js
from service.domain.job import STATES, TERMINAL, JobStatus
from tests.support.fleet import Fleet


def test_the_page_s_states_are_the_enum_s_and_the_api_publishes_that_enum(fleet: Fleet) -> None:
    assert PAGE_FILE.read_text(encoding="utf-8") == job_states_js(), (
        "run: python -m service.api.job_states"
    )
    with fleet.client() as c:
        enum = c.get("/openapi.json").json()["components"]["schemas"]["JobStatus"]["enum"]
        served = c.get("/studio/job-states.js")
    assert enum == list(STATES) == [s.value for s in JobStatus]
    assert served.status_code == 200 and served.text == job_states_js()
    assert f"TERMINAL = Object.freeze({json.dumps([s.value for s in TERMINAL])})" in served.text

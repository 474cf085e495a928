"""The job states as the studio's page reads them (service/api/static/job-states.js), made
from the one list (JobStatus, the API's ``JobStatus`` enum in /openapi.json): the page names
no state of its own. ``python -m service.api.job_states`` writes the file; a unit test checks
it is what this makes."""

from __future__ import annotations

import json
from pathlib import Path

from service.domain.job import STATES, TERMINAL

PAGE_FILE = Path(__file__).parent / "static" / "job-states.js"


def job_states_js() -> str:
    states = json.dumps(list(STATES))
    terminal = json.dumps([s.value for s in TERMINAL])
    return (
        "// Made by `python -m service.api.job_states` from JobStatus (service/domain/job.py),\n"
        "// the API's JobStatus enum: do not edit.\n"
        f"export const STATES = Object.freeze({states});\n"
        f"export const TERMINAL = Object.freeze({terminal});\n"
    )


if __name__ == "__main__":
    PAGE_FILE.write_text(job_states_js(), encoding="utf-8")

"""The service's HTTP API as the CLI talks to it: the client (URL and key from the flags or
the environment), a refused request's one line, an artifact's download, and the JSON shapes
the CLI reads (what service/api/schemas.py and batch_views.py send), validated on arrival so
a service of another version fails here, by name, not as a KeyError halfway through."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    NotRequired,  # pydantic validates these below 3.12
)

from pydantic import TypeAdapter
from typing_extensions import TypedDict

if TYPE_CHECKING:  # httpx loads for the commands that talk to a service alone
    import httpx

USAGE_ERRORS = (401, 404, 409, 413, 422)  # the request's fault: exit code 2


class Notice(TypedDict):
    code: str
    message: str
    segment: NotRequired[int | None]


class JobState(TypedDict):
    """GET /v1/jobs/{id}: what following a job reads."""

    id: str
    status: str
    progress: float
    stage: str
    error: Notice | None
    artifacts: list[str]


class ItemState(TypedDict):
    """One item of GET /v1/batches/{id}."""

    name: str
    job: str
    status: str
    progress: float
    engines: list[str | None]
    error: Notice | None
    artifacts: list[str]
    flagged: NotRequired[list[int]]  # not from a service older than the speech check


class BatchState(TypedDict):
    """GET /v1/batches/{id}: what following a batch reads."""

    id: str
    counts: dict[str, int]
    items: list[ItemState]


class Refused(TypedDict):
    name: str
    detail: object  # a 422's list of problems, or a sentence: problem_text reads it


class JobCreated(TypedDict):
    id: str


class BatchCreated(TypedDict):
    id: str
    refused: list[Refused]


JOB = TypeAdapter(JobState)
JOB_CREATED = TypeAdapter(JobCreated)
BATCH = TypeAdapter(BatchState)
BATCH_CREATED = TypeAdapter(BatchCreated)


def connect(args: argparse.Namespace) -> httpx.Client:
    """A client of the service at --url (or NARRATE_URL) with --key (or NARRATE_API_KEY)."""
    import httpx

    url = (args.url or os.environ.get("NARRATE_URL") or "http://127.0.0.1:8000").rstrip("/")
    key = args.key or os.environ.get("NARRATE_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if getattr(args, "idempotency_key", None):
        headers["Idempotency-Key"] = args.idempotency_key
    return httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(30, read=600))


def refused(resp: httpx.Response) -> int | None:
    """None when the service accepted the request (202); else its error said on stderr and
    the exit code: 2 for the request's fault, 1 for the service's."""
    if resp.status_code == 202:
        return None
    said = problem_text(resp.json().get("detail"))
    print(f"narrate: error: {resp.status_code} {said}", file=sys.stderr)
    return 2 if resp.status_code in USAGE_ERRORS else 1


def download(client: httpx.Client, job_id: str, names: list[str], folder: Path) -> None:
    """The job's artifacts ``names`` into ``folder`` (made, and their sub-folders)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        if ".." in name.split("/"):  # only segments/, masters/<name>/ have folders
            continue
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        url = f"/v1/jobs/{job_id}/artifacts/{name}"
        with client.stream("GET", url) as r, (folder / name).open("wb") as f:
            for chunk in r.iter_bytes():
                f.write(chunk)


def problem_text(detail: object) -> str:
    """An error body's ``detail`` as one line: a sentence, or a 422's list of problems."""
    if isinstance(detail, list):
        return "; ".join(str(p.get("msg", p)) if isinstance(p, dict) else str(p) for p in detail)
    return str(detail)

"""`narrate submit`: a small HTTP client so users don't hand-write curl."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TypeVar

import httpx

from service.cli.console import ProgressBar, render_options
from service.cli.wire import JOB, JOB_CREATED, JobState, connect, download, refused
from service.domain.errors import InputError
from service.domain.job import TERMINAL
from service.domain.takes import take_flags


def submit(args: argparse.Namespace) -> int:
    # Only what the user chose: the service applies the preset's values and the defaults.
    options = render_options(args).model_dump(mode="json", exclude_unset=True)
    script = Path(args.script)
    if not script.is_file():
        raise InputError(f"no such script file: {args.script!r}")
    takes = take_flags(getattr(args, "take", []))
    for flag, value in (("--video", args.video), ("--music", args.music), *takes.items()):
        if value and not Path(value).is_file():  # before anything is sent
            raise InputError(f"{flag}: no such file {value}")
    with connect(args) as client:
        with ExitStack() as stack:
            files: dict[str, tuple[str, IO[bytes], str]] = {
                "script": (script.name, stack.enter_context(script.open("rb")), "text/plain")
            }
            if args.video:
                video = Path(args.video)
                files["video"] = (video.name, stack.enter_context(video.open("rb")), "video/mp4")
            if args.music:
                music = Path(args.music)
                files["music"] = (music.name, stack.enter_context(music.open("rb")), "audio/*")
            for part, path in takes.items():
                files[part] = (Path(path).name, stack.enter_context(open(path, "rb")), "audio/*")
            resp = client.post("/v1/jobs", files=files, data={"options": json.dumps(options)})
        code = refused(resp)
        if code is not None:
            return code
        job_id = JOB_CREATED.validate_python(resp.json())["id"]
        print(job_id)
        if not (args.wait or args.out):
            return 0
        state = follow(client, job_id, ProgressBar())
        if state["status"] != "succeeded":
            error = state["error"]
            said = error["message"] if error else None
            print(f"narrate: job {state['status']}: {said}", file=sys.stderr)
            return 1
        if args.out:
            out = Path(args.out)
            download(client, job_id, state["artifacts"], out)
            print(f"downloaded {', '.join(state['artifacts'])} to {out}")
        return 0


ENDED = tuple(s.value for s in TERMINAL)  # the job states an end is (JobStatus)
State = TypeVar("State")  # a job's or a batch's, as its check reads it


def follow(client: httpx.Client, job_id: str, bar: ProgressBar) -> JobState:
    """Follow the job's event stream (GET /v1/jobs/{id}/events) to its end, the bar drawn
    at each event (polling once the stream fails: see follow_events)."""

    def check() -> JobState | None:
        state = JOB.validate_python(client.get(f"/v1/jobs/{job_id}").json())
        bar(state["progress"], f"{state['status']} {state['stage']}")
        return state if state["status"] in ENDED else None

    return follow_events(client, f"/v1/jobs/{job_id}/events", check)


def follow_events(client: httpx.Client, path: str, check: Callable[[], State | None]) -> State:
    """Follow the event stream at ``path`` (a job's or a batch's), calling ``check`` (read
    the resource, show it; its final state once it has ended, else None) at each event,
    reconnecting with Last-Event-ID after a drop; ``check`` every 0.5 s instead once the
    stream is refused or fails twice running."""
    last, drops = "", 0
    while drops < 2:
        try:
            headers = {"Last-Event-ID": last} if last else {}
            with client.stream("GET", path, headers=headers) as r:
                if r.status_code != 200:
                    break
                for line in r.iter_lines():
                    if line.startswith("id: "):
                        last, drops = line[4:], 0
                    elif line.startswith("data: "):
                        found = check()
                        if found is not None:
                            return found
        except httpx.HTTPError:
            pass
        drops += 1
    while True:
        found = check()
        if found is not None:
            return found
        time.sleep(0.5)

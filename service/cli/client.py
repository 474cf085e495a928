"""`narrate submit`: a small HTTP client so users don't hand-write curl."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import httpx

from service.cli.console import ProgressBar, render_options
from service.domain.errors import InputError
from service.domain.job import TERMINAL
from service.domain.takes import take_flags


def submit(args: argparse.Namespace) -> int:
    url = (args.url or os.environ.get("NARRATE_URL") or "http://127.0.0.1:8000").rstrip("/")
    key = args.key or os.environ.get("NARRATE_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if args.idempotency_key:
        headers["Idempotency-Key"] = args.idempotency_key
    # Only what the user chose: the service applies the preset's values and the defaults.
    options = render_options(args).model_dump(mode="json", exclude_unset=True)
    script = Path(args.script)
    if not script.is_file():
        raise InputError(f"no such script file: {args.script!r}")
    takes = take_flags(getattr(args, "take", []))
    for flag, value in (("--video", args.video), ("--music", args.music), *takes.items()):
        if value and not Path(value).is_file():  # before anything is sent
            raise InputError(f"{flag}: no such file {value}")
    with httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(30, read=600)) as client:
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
        if resp.status_code != 202:
            said = problem_text(resp.json().get("detail"))
            print(f"narrate: error: {resp.status_code} {said}", file=sys.stderr)
            return 2 if resp.status_code in (401, 404, 409, 413, 422) else 1
        job = resp.json()
        print(job["id"])
        if not (args.wait or args.out):
            return 0
        state = follow(client, job["id"], ProgressBar())
        if state["status"] != "succeeded":
            error = state["error"] or {}
            print(f"narrate: job {state['status']}: {error.get('message')}", file=sys.stderr)
            return 1
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            for name in state["artifacts"]:
                if ".." in name.split("/"):  # only segments/, masters/<name>/ have folders
                    continue
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                with (
                    client.stream("GET", f"/v1/jobs/{job['id']}/artifacts/{name}") as r,
                    (out / name).open("wb") as f,
                ):
                    for chunk in r.iter_bytes():
                        f.write(chunk)
            print(f"downloaded {', '.join(state['artifacts'])} to {out}")
        return 0


ENDED = tuple(s.value for s in TERMINAL)  # the job states an end is (JobStatus)


def follow(client: httpx.Client, job_id: str, bar: ProgressBar) -> dict[str, Any]:
    """Follow the job's event stream (GET /v1/jobs/{id}/events) to its end, the bar drawn
    at each event (polling once the stream fails: see follow_events)."""

    def check() -> dict[str, Any] | None:
        state: dict[str, Any] = client.get(f"/v1/jobs/{job_id}").json()
        bar(state["progress"], f"{state['status']} {state['stage']}")
        return state if state["status"] in ENDED else None

    return follow_events(client, f"/v1/jobs/{job_id}/events", check)


def follow_events(
    client: httpx.Client, path: str, check: Callable[[], dict[str, Any] | None]
) -> dict[str, Any]:
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


def problem_text(detail: Any) -> str:
    """An error body's ``detail`` as one line: a sentence, or a 422's list of problems."""
    if isinstance(detail, list):
        return "; ".join(str(p.get("msg", p)) if isinstance(p, dict) else str(p) for p in detail)
    return str(detail)

"""`narrate batch PATH...`: submit a folder of scripts (or files) as one batch, follow it in
one live table (on a terminal; plain lines otherwise) drawn again at each of the batch's
events (polled when the stream drops), download every item into ``OUT/<name>/``; and
`narrate render` with several scripts, one folder each."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from service.cli.console import add_render_flags, read_script
from service.cli.wire import BatchState, ItemState
from service.domain.batch import item_name
from service.domain.errors import InputError
from service.domain.job import TERMINAL
from service.domain.spec import JobSpec

if TYPE_CHECKING:  # httpx loads for `batch` alone: `render` never pays for it
    import httpx

SCRIPTS = (".md", ".txt", ".json")
VIDEOS = (".mp4", ".mov", ".mkv", ".webm")
MUSIC = (".mp3", ".wav", ".flac", ".m4a", ".ogg")
ENDED = (*(s.value for s in TERMINAL), "deleted")  # JobStatus ends, or the item is gone


def scripts_in(paths: list[str]) -> list[Path]:
    """The scripts named, a folder's scripts (sorted) for a folder; one name each."""
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found += sorted(f for f in p.iterdir() if f.suffix.lower() in SCRIPTS and f.is_file())
        elif p.is_file():
            found.append(p)
        else:
            raise InputError(f"no such script file or folder: {raw!r}")
    if not found:
        raise InputError(f"no scripts ({', '.join(SCRIPTS)}) in {' '.join(paths)}")
    names = [item_name(f.name) for f in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"two scripts would make one item name: {', '.join(twice)}")
    return found


def paired(script: Path, folder: Path | None, suffixes: tuple[str, ...]) -> Path | None:
    """``<name>.mp4`` (or another of ``suffixes``) in ``folder``, else next to the script."""
    stem = item_name(script.name)
    for where in (folder, script.parent):
        for suffix in suffixes if where is not None else ():
            candidate = where / f"{stem}{suffix}"  # type: ignore[operator]
            if candidate.is_file():
                return candidate
    return None


class Table:
    """One row per item: redrawn in place on a terminal, a line per change otherwise."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.drawn = 0
        self.last: dict[str, str] = {}

    def __call__(self, items: list[ItemState]) -> None:
        rows = [self.row(i) for i in items]
        if self.tty:
            up = f"\x1b[{self.drawn}F" if self.drawn else ""
            head = f"{'item':<24} {'state':<10} {'progress':>8}  engine"
            self.out.write(up + "".join(f"{line}\x1b[K\n" for line in [head, *rows]))
            self.drawn = len(rows) + 1
        else:
            for item, line in zip(items, rows, strict=True):
                if self.last.get(item["name"]) != line:
                    self.out.write(line.rstrip() + "\n")
                    self.last[item["name"]] = line
        self.out.flush()

    @staticmethod
    def row(item: ItemState) -> str:
        engines = ",".join(sorted({e for e in item["engines"] if e})) or "-"
        pct = f"{item['progress'] * 100:.0f}%"
        heard = len(item.get("flagged") or [])
        flagged = f"  {heard} flagged" if heard else ""
        return f"{item['name']:<24} {item['status']:<10} {pct:>8}  {engines}{flagged}"


def _post(client: httpx.Client, args: argparse.Namespace, scripts: list[Path]) -> httpx.Response:
    videos = Path(args.videos) if args.videos else None
    if videos is not None and not videos.is_dir():
        raise InputError(f"--videos: no such folder {args.videos}")
    with ExitStack() as stack:
        files: list[tuple[str, tuple[str, IO[bytes], str]]] = []
        for script in scripts:
            files.append(
                ("script", (script.name, stack.enter_context(script.open("rb")), "text/plain"))
            )
            for kind, suffixes in (("video", VIDEOS), ("music", MUSIC)):
                found = paired(script, videos, suffixes)
                if found is not None:
                    files.append(
                        (
                            kind,
                            (
                                found.name,
                                stack.enter_context(found.open("rb")),
                                "application/octet-stream",
                            ),
                        )
                    )
        batch = {"preset": args.preset} if args.preset else {}
        if args.partial:
            batch["partial"] = True
        return client.post("/v1/batches", files=files, data={"batch": json.dumps(batch)})


def _follow(client: httpx.Client, batch_id: str, table: Table) -> BatchState:
    """The batch's event stream (GET /v1/batches/{id}/events) followed to its end, the
    table drawn again at each event; polled every 0.5 s once the stream fails."""
    from service.cli.client import follow_events
    from service.cli.wire import BATCH

    def check() -> BatchState | None:
        state = BATCH.validate_python(client.get(f"/v1/batches/{batch_id}").json())
        table(state["items"])
        return state if all(i["status"] in ENDED for i in state["items"]) else None

    return follow_events(client, f"/v1/batches/{batch_id}/events", check)


def _download(client: httpx.Client, state: BatchState, out: Path) -> None:
    from service.cli.wire import download

    for item in state["items"]:
        if item["status"] == "succeeded":
            download(client, item["job"], item["artifacts"], out / item["name"])


def cmd_batch(args: argparse.Namespace) -> int:
    from service.cli.wire import BATCH_CREATED, connect, problem_text
    from service.cli.wire import refused as error_code

    scripts = scripts_in(args.paths)
    with connect(args) as client:
        resp = _post(client, args, scripts)
        code = error_code(resp)
        if code is not None:
            return code
        batch = BATCH_CREATED.validate_python(resp.json())
        print(batch["id"])
        for refused in batch["refused"]:
            print(f"refused {refused['name']}: {problem_text(refused['detail'])}", file=sys.stderr)
        state = _follow(client, batch["id"], Table(sys.stderr))
        if args.out:
            _download(client, state, Path(args.out))
            print(f"downloaded {state['counts']['succeeded']} items to {args.out}")
    for item in state["items"]:
        if item.get("flagged"):
            said = ", ".join(str(n) for n in item["flagged"])
            print(f"{item['name']}: speech check flagged {len(item['flagged'])} (segments {said})")
    bad = [i for i in state["items"] if i["status"] != "succeeded"]
    for item in bad:
        why = item["error"]["message"] if item["error"] else ""
        print(f"narrate: {item['name']} {item['status']}: {why}", file=sys.stderr)
    if bad or batch["refused"]:
        print(f"narrate: {len(bad) + len(batch['refused'])} items did not succeed", file=sys.stderr)
        return 1
    return 0


def render_many(
    args: argparse.Namespace, render: Callable[[argparse.Namespace, JobSpec], int]
) -> int:
    """`narrate render a.md b.md --out DIR`: every script read first (one bad one stops all
    before any render), then each rendered into ``DIR/<name>/`` with the ``<name>.mp4`` next
    to it as its video, one after another through the same pipeline; 1 if any failed."""
    if args.video:
        raise InputError("--video names one video: with several scripts put <name>.mp4 by each")
    scripts = scripts_in(args.script)
    specs = [read_script(script) for script in scripts]
    failed = []
    for script, spec in zip(scripts, specs, strict=True):
        name = item_name(script.name)
        video = paired(script, None, VIDEOS)
        out = str(Path(args.out) / name)
        one = argparse.Namespace(**{**vars(args), "out": out, "video": video and str(video)})
        print(f"{name}:", file=sys.stderr)
        try:
            render(one, spec)
        except Exception as exc:  # the others still render; listed at the end
            print(f"narrate: {name}: error: {exc}", file=sys.stderr)
            failed.append(name)
    if failed:
        print(f"narrate: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def cmd_submit(args: argparse.Namespace) -> int:
    from service.cli import client  # httpx: only the commands that talk to a service load it

    return client.submit(args)


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """submit and batch: the commands that talk to a running service."""
    sb = sub.add_parser("submit", help="submit a script to a running service")
    sb.add_argument("script")
    sb.add_argument("--video")
    sb.add_argument("--wait", action="store_true", help="follow progress until the job ends")
    sb.add_argument("--out", help="download the artifacts here (implies --wait)")
    sb.add_argument(
        "--url", default=None, help="service URL (default $NARRATE_URL or localhost:8000)"
    )
    sb.add_argument("--key", default=None, help="API key (default $NARRATE_API_KEY)")
    add_render_flags(sb)
    sb.add_argument("--idempotency-key")
    sb.set_defaults(func=cmd_submit)

    b = sub.add_parser("batch", help="submit many scripts as one batch to a running service")
    b.add_argument("paths", nargs="+", metavar="PATH", help="scripts, or folders of scripts")
    b.add_argument("--preset", help="a job preset for every item (`narrate presets`)")
    b.add_argument("--videos", help="folder of <name>.mp4 videos (default: next to each script)")
    b.add_argument("--out", help="download each item into OUT/<name>/")
    b.add_argument("--partial", action="store_true", help="create the good items if some are bad")
    b.add_argument(
        "--url", default=None, help="service URL (default $NARRATE_URL or localhost:8000)"
    )
    b.add_argument("--key", default=None, help="API key (default $NARRATE_API_KEY)")
    b.set_defaults(func=cmd_batch)

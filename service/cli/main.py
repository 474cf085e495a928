"""`narrate render|parse|voices|schema|...`: the command line other tools drive."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TypeAlias

from service.adapters.backend import require_shared
from service.cli import batch as cli_batch
from service.cli import mcp as cli_mcp
from service.cli import ops as cli_ops
from service.cli import voices as cli_voices
from service.cli.console import (
    ProgressBar,
    add_render_flags,
    lexicon_files,
    read_script,
    render_options,
)
from service.config import Settings, get_settings
from service.domain.errors import InputError, NarrateError
from service.domain.notices import segment_ranges
from service.domain.spec import JobSpec, json_schema
from service.domain.takes import take_flags


def _warm_up() -> None:
    """Open the word index and the pinyin readings table and design the audio filters in a
    thread: the first segment needs them all, and the main thread spends part of that time
    waiting on ffprobe."""
    try:
        from service import audio
        from service.adapters.text import pinyin

        pinyin.warm()
        audio.preload()
    except Exception:  # best effort: the render loads them itself when it needs them
        pass


def cmd_render(args: argparse.Namespace) -> int:
    settings = get_settings()
    spec = read_script(Path(args.script[0])) if len(args.script) == 1 else None
    warming = threading.Thread(target=_warm_up, name="warm-up", daemon=True)
    warming.start()
    try:
        if spec is None:  # several: each into OUT/<name>/
            return cli_batch.render_many(args, lambda one, s: _render(one, settings, s))
        return _render(args, settings, spec)
    finally:
        warming.join()  # never exit while it is importing


def _render(args: argparse.Namespace, settings: Settings, spec: JobSpec) -> int:
    from service.adapters.ffmpeg.media import FfmpegMedia

    # Absolute from here on: ffmpeg reads a relative path in a listing from the listing's
    # folder, and a colon in a relative one as a protocol.
    video = Path(args.video).absolute() if args.video else None
    media = FfmpegMedia(settings)
    if video is not None:
        media.prefetch(video)  # ffprobe runs while the rest of the adapters load

    from service import wiring  # the adapters load only for the commands that use them

    pipeline = wiring.pipeline(settings, media)
    lexicons = lexicon_files(args.lexicon or [])  # PLS files: no tenant's store here
    flags = argparse.Namespace(**{**vars(args), "lexicon": None})
    options = wiring.presets(settings).resolve("local", render_options(flags))  # shipped ones
    takes = {part: Path(file).absolute() for part, file in take_flags(args.take).items()}
    for part, path in takes.items():
        if not path.is_file():
            raise InputError(f"--take: {part}: no such file {path}")
    plan = pipeline.door.plan(spec, options, video, takes, lexicons)
    for w in plan.warnings:
        print(f"warning: {w.message}", file=sys.stderr)
    music = Path(args.music).absolute() if getattr(args, "music", None) else None
    if music is not None and not music.is_file():
        raise InputError(f"--music: no such file {args.music}")
    out = Path(args.out).absolute()
    manifest = pipeline.render(plan, out, video, ProgressBar(), music=music, takes=takes).manifest
    for w in manifest.warnings[len(plan.warnings) :]:
        print(f"warning: {w.message}", file=sys.stderr)
    print(
        f"wrote {args.out}: {manifest.duration:g} s, {len(manifest.cues)} cues, "
        f"{manifest.loudness.integrated_lufs} LUFS"
    )
    if (heard := manifest.speech_check) is not None:
        flagged = segment_ranges(heard.flagged) if heard.flagged else "none"
        print(
            f"  speech check: {heard.checked} checked, {heard.skipped} skipped, flagged: {flagged}"
        )
    for m in manifest.masters or []:
        print(f"  masters/{m.name}: {m.loudness.integrated_lufs} LUFS, picture {m.picture}")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    spec = read_script(Path(args.script))
    print(spec.model_dump_json(indent=2, exclude_defaults=False))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    if args.manifest:
        from service.pipeline.manifest import manifest_schema

        print(json.dumps(manifest_schema(), ensure_ascii=False, indent=2))
    else:
        print(json.dumps(json_schema(), ensure_ascii=False, indent=2))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.cli.stack import Stack

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)  # uvicorn re-raises SIGTERM after its shutdown: end via finally

    signal.signal(signal.SIGTERM, terminate)
    os.environ["NARRATE_HOST"] = args.host
    get_settings.cache_clear()
    settings = get_settings()
    require_shared(settings, "narrate serve (its API, workers and reconciler)")
    stack = Stack(settings)
    try:
        stack.start_redis()
        os.environ.update(stack.env)
        get_settings.cache_clear()
        stack.start_workers(args.workers)
        stack.start_reconciler()
        stack.supervise()
        uvicorn.run("service.api.main:app", host=args.host, port=args.port, log_level="info")
    finally:
        stack.stop()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    """One Celery worker, supervised: started again if it ends unasked (cli/supervisor.py)."""
    from service import logs
    from service.cli.stack import WORKER_ENV, worker_argv
    from service.cli.supervisor import supervise

    require_shared(get_settings(), "narrate worker")
    logs.configure(get_settings().log_format)
    return supervise(worker_argv(args.name, args.concurrency), dict(os.environ) | WORKER_ENV)


def cmd_reconcile(args: argparse.Namespace) -> int:
    from service import wiring

    require_shared(get_settings(), "narrate reconcile")
    reconciler = wiring.reconciler(get_settings())
    if args.once:
        print(json.dumps(reconciler.reconcile()))
        return 0
    reconciler.run_forever(args.interval)
    return 0


def cmd_styles(args: argparse.Namespace) -> int:
    from service.adapters.files.styles import load_styles

    styles = load_styles(get_settings())
    width = max(16, *map(len, styles))
    for name, preset in styles.items():
        print(f"{name:<{width}} {preset.get('description', '')}")
    return 0


# What add_subparsers returns (a string: _SubParsersAction is generic only in the stubs).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _add_job_commands(sub: Subparsers) -> None:
    """render, parse, schema, styles: commands about scripts (submit, batch: cli_batch.py)."""
    r = sub.add_parser("render", help="render a script into narration, subtitles and video")
    r.add_argument("script", nargs="+", help=".md/.txt scripts or .json job specs")
    r.add_argument("--out", required=True, help="directory for the artifacts")
    r.add_argument("--video", help="video to mux the narration and subtitles onto")
    add_render_flags(r)
    r.set_defaults(func=cmd_render)

    pa = sub.add_parser("parse", help="print the JSON spec a script becomes")
    pa.add_argument("script")
    pa.set_defaults(func=cmd_parse)

    sc = sub.add_parser("schema", help="print the JSON Schema of the job spec")
    sc.add_argument(
        "--manifest", action="store_true", help="of manifest.json instead (what a render writes)"
    )
    sc.set_defaults(func=cmd_schema)
    sub.add_parser("styles", help="list the subtitle style presets").set_defaults(func=cmd_styles)
    pr = sub.add_parser("presets", help="list the shipped job presets (--preset NAME)")
    pr.add_argument("-v", "--verbose", action="store_true", help="with the source and options")
    pr.set_defaults(func=cli_ops.cmd_presets)


def _add_voice_commands(sub: Subparsers) -> None:
    vo = sub.add_parser("voices", help="list the voice catalog, or install a voice pack")
    vo.add_argument("--language", help="only voices of this language or locale: zh, zh-TW, en")
    vo.add_argument("--engine", choices=["edge", "espeak", "kokoro", "fastspeech2"])
    vo.add_argument(
        "--refresh", action="store_true", help="update edge's voices from the live list first"
    )
    vo.set_defaults(func=cli_voices.cmd_voices)
    vo_sub = vo.add_subparsers(dest="voices_command")
    vi = vo_sub.add_parser(
        "install",
        help="build and install a voice pack (kokoro: Apache-2.0; zh-baker: non-commercial)",
    )
    vi.add_argument("voice", help="the voice pack to install: kokoro or zh-baker")
    vi.add_argument(
        "--accept-license",
        action="store_true",
        help="accept the voice's licence (zh-baker: CC BY-NC-SA 4.0, non-commercial use only)",
    )
    vi.set_defaults(func=cli_voices.cmd_voices)


def _add_service_commands(sub: Subparsers) -> None:
    """serve, api, worker, reconcile, keys: running the service."""
    sv = sub.add_parser(
        "serve", help="run the API and N workers (and a local Redis if needed) in one process"
    )
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--workers", type=int, default=2)
    sv.set_defaults(func=cmd_serve)

    wk = sub.add_parser("worker", help="run one Celery worker process")
    wk.add_argument("--name", default="worker")
    wk.add_argument("--concurrency", type=int, default=1)
    wk.set_defaults(func=cmd_worker)

    rc = sub.add_parser("reconcile", help="requeue stalled jobs and time out old ones")
    rc.add_argument("--interval", type=float, default=30.0)
    rc.add_argument("--once", action="store_true")
    rc.set_defaults(func=cmd_reconcile)
    cli_ops.add_commands(sub)  # api, keys, gc, webhooks
    cli_batch.add_commands(sub)  # submit, batch
    cli_mcp.add_commands(sub)  # mcp


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="narrate", description="TTS narration and subtitle production")
    sub = p.add_subparsers(dest="command", required=True)
    _add_job_commands(sub)
    _add_voice_commands(sub)
    _add_service_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except NarrateError as exc:
        print(f"narrate: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `narrate presets | head`: the reader left while we were still writing; the rest of
        # the output goes nowhere, and that is no error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def entry() -> None:
    """The `narrate` command: ``main``, then leave without tearing the interpreter down.
    Freeing the pinyin and word tables one object at a time took ~0.3 s of a 2.3 s render;
    by now every file is closed and every thread joined (coverage saves its data on _exit)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        # `narrate parse x | head`: the reader has left, nothing more to say to it.
        with contextlib.suppress(BrokenPipeError):
            stream.flush()
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    entry()

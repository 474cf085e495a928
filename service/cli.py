"""`narrate render|parse|voices|schema|...`: the command line other tools drive."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from service.config import Settings, get_settings
from service.domain.errors import InputError, NarrateError, ScriptError
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions, StyleSpec, json_schema


def read_script(path: Path) -> JobSpec:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such script file: {str(path)!r}") from None
    except UnicodeDecodeError:
        raise InputError(f"the script is not UTF-8 text: {str(path)!r}") from None
    except IsADirectoryError:
        raise InputError(f"the script is a directory: {str(path)!r}") from None
    return parse_script(text, path.name)


class ProgressBar:
    """A bar on stderr, redrawn in place on a terminal; one line per stage otherwise."""

    def __init__(self, width: int = 30) -> None:
        self.width = width
        self.lock = threading.Lock()
        self.tty = sys.stderr.isatty()

    def __call__(self, fraction: float, stage: str) -> None:
        fraction = max(0.0, min(1.0, fraction))
        with self.lock:
            if self.tty:
                filled = round(self.width * fraction)
                bar = "█" * filled + "░" * (self.width - filled)
                end = "\n" if fraction >= 1 else ""
                sys.stderr.write(f"\r{bar} {fraction * 100:5.1f}% {stage:<24}{end}")
            else:
                sys.stderr.write(f"progress {fraction * 100:5.1f}% {stage}\n")
            sys.stderr.flush()


def _warm_up() -> None:
    """Load jieba's dictionary and import scipy (about a second of CPU between them) in the
    background, while the main thread waits on ffprobe and espeak-ng."""
    try:
        from service import audio
        from service.adapters.segmenter import warm

        warm()
        audio.preload()
    except Exception:  # best effort: the render loads them itself when it needs them
        pass


def cmd_render(args: argparse.Namespace) -> int:
    settings = get_settings()
    spec = read_script(Path(args.script))
    warming = threading.Thread(target=_warm_up, name="warm-up", daemon=True)
    warming.start()
    try:
        return _render(args, settings, spec)
    finally:
        warming.join()  # never exit while it is importing


def _render(args: argparse.Namespace, settings: Settings, spec: JobSpec) -> int:
    from service.pipeline import default_pipeline

    video = Path(args.video) if args.video else None
    pipeline = default_pipeline(settings)
    plan = pipeline.plan(spec, render_options(args), video)
    for w in plan.warnings:
        print(f"warning: {w}", file=sys.stderr)
    music = Path(args.music) if getattr(args, "music", None) else None
    if music is not None and not music.is_file():
        raise InputError(f"--music: no such file {args.music}")
    manifest = pipeline.render(plan, Path(args.out), video, ProgressBar(), music=music).manifest
    for w in manifest["warnings"][len(plan.warnings) :]:
        print(f"warning: {w}", file=sys.stderr)
    print(
        f"wrote {args.out}: {manifest['duration']:g} s, {len(manifest['cues'])} cues, "
        f"{manifest['loudness']['integrated_lufs']} LUFS"
    )
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    spec = read_script(Path(args.script))
    print(spec.model_dump_json(indent=2, exclude_defaults=False))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), ensure_ascii=False, indent=2))
    return 0


def cmd_voices(args: argparse.Namespace) -> int:
    from service.voices import load_catalog, refresh_catalog

    path = get_settings().voices_file
    if args.refresh:
        import asyncio

        import edge_tts

        try:
            listed = asyncio.run(asyncio.wait_for(edge_tts.list_voices(), timeout=30))
        except Exception as exc:  # offline, DNS, TLS, a proxy: all mean "not refreshed"
            print(
                f"narrate: error: cannot fetch edge's voice list ({type(exc).__name__}: "
                f"{str(exc)[:200]}); the catalog is unchanged",
                file=sys.stderr,
            )
            return 1
        n = refresh_catalog(path, [dict(v) for v in listed])
        print(f"{n} edge voices written to {path}", file=sys.stderr)
    voices = load_catalog(path).filter(args.language, args.engine)
    if not voices:
        print(f"narrate: error: no voice speaks {args.language!r}", file=sys.stderr)
        return 2
    for v in voices:
        mark = "*" if v.default else " "
        print(f"{mark} {v.engine:<7} {v.locale or v.language:<15} {v.gender:<7} {v.id}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import os
    import signal

    import uvicorn

    from service.stack import Stack

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)  # uvicorn re-raises SIGTERM after its shutdown: end via finally

    signal.signal(signal.SIGTERM, terminate)
    os.environ["NARRATE_HOST"] = args.host
    get_settings.cache_clear()
    settings = get_settings()
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
    import os

    from service.stack import worker_argv

    argv = worker_argv(args.name, args.concurrency)
    os.execv(argv[0], argv)


def cmd_reconcile(args: argparse.Namespace) -> int:
    from service.jobs import build_service
    from service.reconciler import run_forever

    svc = build_service(get_settings())
    if args.once:
        print(json.dumps(svc.reconcile()))
        return 0
    run_forever(svc, args.interval)
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    from service.keys import KeyStore

    print(KeyStore(get_settings().keys_file).create(args.name))
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    from service.client import submit

    return submit(args)


def add_render_flags(p: argparse.ArgumentParser) -> None:
    """The per-render choices, the same for `render` and `submit`."""
    p.add_argument("--engine", choices=["espeak", "edge", "auto"])
    p.add_argument("--voice")
    p.add_argument("--burn-in", action="store_true", help="render the subtitles into the picture")
    p.add_argument("--original-audio", choices=["drop", "mix"], default="drop")
    p.add_argument("--extend-video", action="store_true", help="freeze the last frame if needed")
    p.add_argument("--on-overflow", choices=["fail", "squeeze", "extend"])
    p.add_argument("--music-level", type=float, help="music loudness, dB relative to speech (-8)")
    p.add_argument("--music-duck", type=float, help="dB the music dips under speech (12)")
    p.add_argument(
        "--screen-text",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each shot's 屏幕文字 as its own layer (default: with --burn-in only)",
    )
    p.add_argument(
        "--style", help="subtitle style: a preset (`narrate styles`) or a JSON file of fields"
    )


MAX_STYLE_FILE = 64 * 1024


def style_option(value: str | None) -> StyleSpec | None:
    """``--style``: a preset name, or a JSON file of style fields (a StyleSpec)."""
    if not value:
        return None
    data: Any = value
    if value.lower().endswith(".json"):
        path = Path(value)
        try:
            if path.stat().st_size > MAX_STYLE_FILE:
                raise ScriptError(f"{value} is over {MAX_STYLE_FILE} bytes", "--style")
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ScriptError(f"cannot read {value}: {exc}", "--style") from None
    if isinstance(data, str):
        data = {"preset": data}
    try:
        return StyleSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = " ".join(str(x) for x in first["loc"])
        raise ScriptError(
            str(first["msg"]).removeprefix("Value error, "), f"--style {where}".strip()
        ) from None


def render_options(args: argparse.Namespace) -> RenderOptions:
    try:
        return _render_options(args)
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = "--" + str(first["loc"][0]).replace("_", "-")
        raise ScriptError(str(first["msg"]), flag) from None


def _render_options(args: argparse.Namespace) -> RenderOptions:
    return RenderOptions(
        engine=args.engine,
        voice=args.voice,
        on_overflow=args.on_overflow,
        burn_in=args.burn_in,
        original_audio=args.original_audio,
        extend_video=args.extend_video,
        style=style_option(getattr(args, "style", None)),
        screen_text=getattr(args, "screen_text", None),
        **{
            k: v
            for k, v in (
                ("music_level", getattr(args, "music_level", None)),
                ("music_duck", getattr(args, "music_duck", None)),
            )
            if v is not None
        },
    )


def cmd_styles(args: argparse.Namespace) -> int:
    from service.styles import load_styles

    for name, preset in load_styles(get_settings()).items():
        print(f"{name:<16} {preset.get('description', '')}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="narrate", description="TTS narration and subtitle production")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("render", help="render a script into narration, subtitles and video")
    r.add_argument("script", help="a .md/.txt script or a .json job spec")
    r.add_argument("--out", required=True, help="directory for the artifacts")
    r.add_argument("--video", help="video to mux the narration and subtitles onto")
    r.add_argument("--music", help="music to lay under the voice (looped/trimmed, ducked)")
    add_render_flags(r)
    r.set_defaults(func=cmd_render)

    pa = sub.add_parser("parse", help="print the JSON spec a script becomes")
    pa.add_argument("script")
    pa.set_defaults(func=cmd_parse)

    sub.add_parser("schema", help="print the JSON Schema of the job spec").set_defaults(
        func=cmd_schema
    )
    sub.add_parser("styles", help="list the subtitle style presets").set_defaults(
        func=cmd_styles
    )
    vo = sub.add_parser("voices", help="list the voice catalog")
    vo.add_argument("--language", help="only voices of this language or locale: zh, zh-TW, en")
    vo.add_argument("--engine", choices=["edge", "espeak"])
    vo.add_argument(
        "--refresh", action="store_true", help="update edge's voices from the live list first"
    )
    vo.set_defaults(func=cmd_voices)

    sv = sub.add_parser("serve", help="run the API and N workers (and a local Redis if needed)")
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

    ks = sub.add_parser("keys", help="manage API keys")
    ks_sub = ks.add_subparsers(dest="keys_command", required=True)
    kc = ks_sub.add_parser("create", help="create a key for tenant NAME and print it")
    kc.add_argument("name")
    kc.set_defaults(func=cmd_keys)

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


if __name__ == "__main__":
    sys.exit(main())

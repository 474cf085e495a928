"""What the command line and its HTTP client share: reading a script file, the per-render
flags, and the progress bar on stderr."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from service.domain.errors import InputError
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions


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


def add_render_flags(p: argparse.ArgumentParser) -> None:
    """The per-render choices, the same for `render` and `submit`."""
    p.add_argument("--engine", choices=["espeak", "edge", "auto", "fastspeech2"])
    p.add_argument("--voice")
    p.add_argument("--burn-in", action="store_true", help="render the subtitles into the picture")
    p.add_argument("--original-audio", choices=["drop", "mix"], default="drop")
    p.add_argument("--extend-video", action="store_true", help="freeze the last frame if needed")
    p.add_argument("--on-overflow", choices=["fail", "squeeze", "extend"])


def render_options(args: argparse.Namespace) -> RenderOptions:
    return RenderOptions(
        engine=args.engine,
        voice=args.voice,
        on_overflow=args.on_overflow,
        burn_in=args.burn_in,
        original_audio=args.original_audio,
        extend_video=args.extend_video,
    )

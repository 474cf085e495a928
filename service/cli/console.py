"""What the command line and its HTTP client share: reading a script file, the per-render
flags, and the progress bar on stderr."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from service.domain.errors import InputError, ScriptError
from service.domain.lexicons import LexiconFileError, UsedLexicon, used
from service.domain.pls import read_pls
from service.domain.script import parse_script
from service.domain.spec import JobSpec, RenderOptions
from service.domain.style import StyleSpec
from service.domain.wire import JsonObject


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


def add_lexicon_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lexicon",
        action="append",
        metavar="ID",
        help="a pronunciation dictionary of yours (/v1/lexicons), by id; repeatable, the later "
        "over the earlier. `narrate render` takes a PLS file instead",
    )


def add_render_flags(p: argparse.ArgumentParser) -> None:
    """The per-render choices, the same for `render` and `submit`."""
    p.add_argument(
        "--preset", help="a job preset (`narrate presets`): its options, under these flags"
    )
    p.add_argument("--engine", choices=["espeak", "edge", "auto", "kokoro", "fastspeech2"])
    p.add_argument("--voice")
    add_lexicon_flag(p)
    p.add_argument(
        "--no-check-speech",
        dest="check_speech",
        action="store_false",
        default=None,
        help="skip the speech check (each segment transcribed offline and compared)",
    )
    p.add_argument(
        "--on-mismatch",
        choices=["warn", "retry", "fail"],
        help="a segment the speech check flags: warn (default), retry it, or fail",
    )
    p.add_argument(
        "--burn-in",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="render the subtitles into the picture (--no-burn-in: not, whatever the preset)",
    )
    p.add_argument("--original-audio", choices=["drop", "mix"])
    p.add_argument(
        "--extend-video", action="store_true", default=None, help="freeze the last frame if needed"
    )
    p.add_argument("--target-lufs", type=float, help="the master's integrated loudness (-16)")
    p.add_argument("--true-peak", type=float, help="the master's true-peak ceiling, dBTP (-1)")
    p.add_argument("--on-overflow", choices=["fail", "squeeze", "extend"])
    p.add_argument("--music", help="music to lay under the voice (looped/trimmed, ducked)")
    p.add_argument(
        "--take",
        action="append",
        default=[],
        metavar="[N=]FILE",
        help="a recorded take: N=FILE for segment N (repeat per segment), FILE for the whole "
        "script; spoken instead of synthesis, its subtitles timed by alignment",
    )
    p.add_argument("--music-level", type=float, help="music loudness, dB relative to speech (-8)")
    p.add_argument("--music-duck", type=float, help="dB the music dips under speech (12)")
    add_subtitle_flags(p)
    p.add_argument(
        "--master",
        action="append",
        metavar="NAME[=PRESET]|JSON",
        help="one more master under masters/NAME/ (repeat: several from one render), finished "
        "as preset PRESET (default: NAME) says: loudness, style, burn-in; or a JSON object "
        "of its fields, as the API's options masters take",
    )
    p.add_argument(
        "--exports",
        help="editor timelines, comma-separated: otio,fcpxml,fcp7,edl (with their media in "
        "timeline-package.zip)",
    )


def add_subtitle_flags(p: argparse.ArgumentParser) -> None:
    """What the subtitles show and how: layers, style, captions, Chinese script."""
    p.add_argument(
        "--screen-text",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each shot's 屏幕文字 as its own layer (default: with --burn-in only)",
    )
    p.add_argument(
        "--style", help="subtitle style: a preset (`narrate styles`) or a JSON file of fields"
    )
    p.add_argument(
        "--captions",
        choices=["static", "highlight", "reveal", "box", "pop"],
        help="narration word by word (ASS and burn-in): the spoken word in the highlight "
        "colour, words appearing as spoken, the spoken word on a filled box, or popping in "
        "at 120 %% (default: the style's, static)",
    )
    p.add_argument(
        "--traditional",
        choices=["tw", "hk", "none"],
        help="also write subtitles.zh-Hant.* (OpenCC: tw = Taiwan phrasing, hk = Hong Kong); "
        "none: not even for a zh-TW/zh-HK voice",
    )
    p.add_argument(
        "--burn-in-script",
        choices=["hans", "hant"],
        help="the Chinese script the video shows: hans (Simplified) or hant (Traditional)",
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


def master_option(value: str, n: int) -> JsonObject:
    """``--master NAME[=PRESET]`` (preset NAME by default) or a JSON object of its fields: a
    master's options JSON (wire format), validated with the rest by RenderOptions."""
    if not value.lstrip().startswith("{"):
        name, _, preset = value.partition("=")
        return {"name": name, "preset": preset or name}
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"not a JSON object: {exc}", f"--master {n}") from None
    if not isinstance(data, dict):
        raise ScriptError("not a JSON object", f"--master {n}")
    return data


LOUDNESS_FLAGS: dict[tuple[str, ...], str] = {
    ("loudness", "target_lufs"): "--target-lufs",
    ("loudness", "true_peak_dbtp"): "--true-peak",
}


def lexicon_files(values: list[str]) -> list[UsedLexicon]:
    """``narrate render --lexicon FILE.pls``: each file read as a dictionary (one process has
    no tenant's dictionaries to name by id)."""
    out: list[UsedLexicon] = []
    for value in values:
        path = Path(value)
        if not path.is_file():
            raise ScriptError(
                f"{value}: no such file (`narrate render` reads PLS files; a dictionary "
                "kept by the service is named by id with `narrate submit --lexicon ID`)",
                "--lexicon",
            )
        data = path.read_bytes()
        try:
            doc = read_pls(data)
        except LexiconFileError as exc:
            raise ScriptError(f"{value}: {exc.message}", "--lexicon") from None
        out.append(used(hashlib.sha256(data).hexdigest()[:16], 1, path.name, doc.rules))
    return out


def render_options(args: argparse.Namespace) -> RenderOptions:
    try:
        return _render_options(args)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(str(x) for x in first["loc"])
        flag = LOUDNESS_FLAGS.get(loc[:2], "--" + loc[0].replace("_", "-"))
        if loc[0] == "masters":  # the n-th --master given
            flag = "--master" + (f" {int(loc[1]) + 1}" if len(loc) > 1 else "")
        raise ScriptError(str(first["msg"]).removeprefix("Value error, "), flag) from None


def _render_options(args: argparse.Namespace) -> RenderOptions:
    """Only the flags given: the preset's values (and the defaults) fill the rest."""
    given: JsonObject = {  # the flags as options JSON, validated below
        name: getattr(args, name, None)
        for name in (
            "preset",
            "engine",
            "voice",
            "on_overflow",
            "burn_in",
            "original_audio",
            "extend_video",
            "screen_text",
            "captions",
            "music_level",
            "music_duck",
            "traditional",
            "burn_in_script",
            "check_speech",
            "on_mismatch",
        )
    }
    style = style_option(getattr(args, "style", None))  # already a model: added last
    if getattr(args, "lexicon", None):
        given["lexicons"] = list(args.lexicon)
    exports = getattr(args, "exports", None)
    if exports is not None:
        given["exports"] = [e.strip() for e in exports.split(",") if e.strip()]
    loudness = {
        key: value
        for key, value in (
            ("target_lufs", getattr(args, "target_lufs", None)),
            ("true_peak_dbtp", getattr(args, "true_peak", None)),
        )
        if value is not None
    }
    if loudness:
        given["loudness"] = loudness
    if getattr(args, "master", None):
        given["masters"] = [master_option(m, n) for n, m in enumerate(args.master, 1)]
    data = {k: v for k, v in given.items() if v is not None}
    return RenderOptions.model_validate(data if style is None else {**data, "style": style})

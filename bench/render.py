"""End-to-end speed of `narrate render` against bare ffmpeg, side by side in one run.

The bundled example (examples/kv-cache-quantization.md, espeak-ng) on two generated 90 s
1080x1920 videos (a flat colour, and footage-like detail at ~6 Mb/s), each render cold from
the command line (a fresh data dir: no TTS cache, a new Python process):
  soft subtitles  vs  a bare stream-copy mux of the same video + narration + SRT (aim <= 2x)
  --burn-in       vs  a bare `libx264 -preset ultrafast` encode of the same video (aim <= 1.1x)
The four runs are interleaved, ROUNDS times, so machine load hits them alike; the ratios use
each run's best time. ``--against DIR``: a fifth run, --burn-in from another checkout (say
the commit before a change, ``git worktree add DIR REV``), interleaved with the others, for
a before/after side by side. Usage:
    .venv/bin/python bench/render.py [--rounds N] [--video flat|footage|both] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_footage, make_video  # noqa: E402

EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"
SECONDS = 90


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> float:
    import os

    t = time.perf_counter()
    subprocess.run(
        argv, check=True, capture_output=True, env={**os.environ, **(env or {})}, cwd=cwd
    )
    return time.perf_counter() - t


def bench(video: Path, work: Path, rounds: int, label: str, against: Path | None) -> None:
    runs: dict[str, list[float]] = {"soft": [], "mux": [], "burn": [], "encode": []}
    counter = iter(range(10**6))

    def render(*flags: str, root: Path = ROOT) -> Callable[[], float]:
        def go() -> float:
            n = next(counter)
            out = work / f"out-{n}"
            env = {"NARRATE_DATA_DIR": str(work / f"data-{n}")}  # cold: no TTS cache
            return timed(
                [sys.executable, "-m", "service.cli.main", "render", str(EXAMPLE), "--out",
                 str(out), "--video", str(video), "--engine", "espeak", *flags],
                env,
                root,  # `-m service.cli.main` runs that checkout's code
            )  # fmt: skip

        return go

    last = work / "out-0"

    def bare_mux() -> float:
        return timed(
            ["ffmpeg", "-nostdin", "-y", "-v", "error", "-i", str(video),
             "-i", str(last / "narration.wav"), "-i", str(last / "subtitles.srt"),
             "-map", "0:v:0", "-map", "1:a", "-map", "2:s", "-c:v", "copy",
             "-c:a", "aac", "-b:a", "160k", "-c:s", "mov_text", str(work / "bare-mux.mp4")]
        )  # fmt: skip

    def bare_encode() -> float:
        return timed(
            ["ffmpeg", "-nostdin", "-y", "-v", "error", "-i", str(video),
             "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
             str(work / "bare-encode.mp4")]
        )  # fmt: skip

    for _ in range(rounds):
        runs["soft"].append(render()())
        runs["mux"].append(bare_mux())
        runs["burn"].append(render("--burn-in")())
        runs["encode"].append(bare_encode())
        if against is not None:
            runs.setdefault("against", []).append(render("--burn-in", root=against)())
    manifest = json.loads((last / "manifest.json").read_text(encoding="utf-8"))
    best = {k: min(v) for k, v in runs.items()}
    print(
        f"{EXAMPLE.name}: {manifest['duration']:g} s narration, {len(manifest['segments'])} "
        f"segments, espeak, cold; {SECONDS} s 1080x1920 {label}; best of {rounds}"
    )
    for name, what in [
        ("soft", "narrate render (soft subtitles)"),
        ("mux", "bare stream-copy mux (video copy, AAC, mov_text)"),
        ("burn", "narrate render --burn-in"),
        ("encode", "bare libx264 -preset ultrafast encode"),
        *([("against", f"narrate render --burn-in, {against}")] if against else []),
    ]:
        times = " ".join(f"{t:.2f}" for t in runs[name])
        print(f"  {what:<50} {best[name]:6.2f} s   (runs: {times})")
    print(f"  soft / bare mux:        {best['soft'] / best['mux']:.2f}x   (aim <= 2x)")
    print(f"  burn-in / bare encode:  {best['burn'] / best['encode']:.2f}x   (aim <= 1.1x)")
    if against is not None:
        print(f"  {against} burn-in / bare encode:  {best['against'] / best['encode']:.2f}x")
    print(
        f"  loudness {manifest['loudness']['integrated_lufs']} LUFS, "
        f"{manifest['loudness']['true_peak_dbtp']} dBTP"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--video", choices=["flat", "footage", "both"], default="both")
    ap.add_argument("--against", type=Path, help="another checkout's --burn-in, side by side")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.video in ("flat", "both"):
            flat = make_video(work / "flat.mp4", SECONDS)
            label = "flat colour + moving box (make_video)"
            bench(flat, work / "flat", args.rounds, label, args.against)
        if args.video in ("footage", "both"):
            footage = make_footage(work / "footage.mp4", SECONDS)
            label = "footage-like, 6 Mb/s (make_footage)"
            bench(footage, work / "footage", args.rounds, label, args.against)


if __name__ == "__main__":
    main()

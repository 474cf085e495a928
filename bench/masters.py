"""Two masters from one render against one and two separate renders, side by side in one run.

The bundled example (examples/kv-cache-quantization.md, espeak-ng) on a generated 90 s
1080x1920 video, each render from the command line in a new Python process:
  masters  one job, `--master douyin --master youtube` (douyin burned in, youtube soft)
  one      one burn-in job, `--preset douyin`
  two      two separate jobs, `--preset douyin` then `--preset youtube`, each cold
  two-warm the same two jobs sharing a data dir (the second's speech from the TTS cache)
  pair     one job, douyin and douyin at -18 LUFS (a master differing only in loudness)
  two-pair the same as two separate jobs (`--preset douyin [--target-lufs -18]`)
Every job is cold (a fresh data dir: no TTS cache) unless said. The runs are interleaved,
ROUNDS times, so machine load hits them alike; the ratios use each run's best wall time, and
the median CPU time (user + system of the render and every process it ran: a shared machine
moves it less than the wall time). Aims:
masters <= 1.3x one, and <= 0.6x two. A soft job costs a tenth of a burn-in one here, so
`masters / two` cannot go below ~0.9x: the 0.6x aim is for masters that share a picture, as
`pair / two-pair` shows. Each master's loudness as its manifest reports it.
Usage:
    .venv/bin/python bench/masters.py [--rounds N] [--seconds S]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402

EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"
# douyin again at -18 LUFS: a master differing only in loudness (its picture stream-copied)
QUIET = json.dumps({"name": "quiet", "preset": "douyin", "loudness": {"target_lufs": -18}})


CPU: dict[str, float] = {"used": 0.0}  # CPU seconds of the renders so far (and their ffmpegs)


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def render(video: Path, out: Path, data: Path, *flags: str) -> float:
    """One `narrate render`, its wall time; its CPU time (with every process it waited for)
    is added to CPU["used"]."""
    argv = [sys.executable, "-m", "service.cli.main", "render", str(EXAMPLE), "--out", str(out)]
    argv += ["--video", str(video), "--engine", "espeak", *flags]
    env = {**os.environ, "NARRATE_DATA_DIR": str(data)}
    t, c = time.perf_counter(), _cpu()
    subprocess.run(argv, check=True, capture_output=True, env=env, cwd=ROOT)
    CPU["used"] += _cpu() - c
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=90)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-masters-") as tmp:
        work = Path(tmp)
        video = make_video(work / "video.mp4", args.seconds)
        counter = iter(range(10**6))

        def fresh() -> tuple[Path, Path]:
            n = next(counter)
            return work / f"out-{n}", work / f"data-{n}"

        def masters(*flags: str) -> float:
            out, data = fresh()
            took = render(video, out, data, *flags)
            manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
            for m in manifest["masters"]:
                loud = m["loudness"]
                print(
                    f"  master {m['name']:<8} picture {m['picture']:<8} "
                    f"{loud['integrated_lufs']:.2f} LUFS (target {loud['target_lufs']:g}) "
                    f"{loud['true_peak_dbtp']:.2f} dBTP (ceiling "
                    f"{loud['true_peak_ceiling_dbtp']:g}) passed {loud['passed']}"
                )
            return took

        def one() -> float:
            return render(video, *fresh(), "--preset", "douyin")

        def two() -> float:
            return render(video, *fresh(), "--preset", "douyin") + render(
                video, *fresh(), "--preset", "youtube"
            )

        def two_warm() -> float:
            out, data = fresh()
            return render(video, out, data, "--preset", "douyin") + render(
                video, out.with_name(out.name + "-b"), data, "--preset", "youtube"
            )

        def quiet_pair() -> float:
            return masters("--master", "douyin", "--master", QUIET)

        def two_quiet() -> float:
            return render(video, *fresh(), "--preset", "douyin") + render(
                video, *fresh(), "--preset", "douyin", "--target-lufs", "-18"
            )

        runs: dict[str, Callable[[], float]] = {
            "masters": lambda: masters("--master", "douyin", "--master", "youtube"),
            "one": one,
            "two": two,
            "two-warm": two_warm,
            "pair": quiet_pair,
            "two-pair": two_quiet,
        }
        times: dict[str, list[float]] = {k: [] for k in runs}
        cpus: dict[str, list[float]] = {k: [] for k in runs}
        for r in range(args.rounds):
            for name, run in runs.items():
                before = CPU["used"]
                times[name].append(run())
                cpus[name].append(CPU["used"] - before)
                print(
                    f"round {r + 1} {name:<9} {times[name][-1]:6.2f} s wall, "
                    f"{cpus[name][-1]:6.2f} s CPU",
                    flush=True,
                )
        # Wall: each run's best (the machine is shared); CPU: the median (load moves it less).
        for label, figures, pick in (
            ("wall, best", times, min),
            ("CPU, median", cpus, statistics.median),
        ):
            b = {k: pick(v) for k, v in figures.items()}
            m = b["masters"]
            print(f"{label}: {json.dumps({k: round(v, 2) for k, v in b.items()})}")
            print(f"  masters / one burn-in job:        {m / b['one']:.2f}x (aim <= 1.3)")
            print(f"  masters / two separate jobs:      {m / b['two']:.2f}x (aim <= 0.6)")
            print(f"  masters / two jobs, shared cache: {m / b['two-warm']:.2f}x")
            print(f"  pair / two separate jobs:         {b['pair'] / b['two-pair']:.2f}x")
        print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

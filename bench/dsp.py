"""The service's numpy DSP (service/audio/dsp.py) against the scipy/pyloudnorm code it
replaced, side by side in one run:

  import  a fresh Python process importing the audio path: numpy only (now) vs also
          scipy.signal, scipy.ndimage and pyloudnorm (before), CPU and wall time, plus the
          first call of each entry point (filter design) in that process
  speed   resample 22050 -> 24000 Hz, oversample4, LoudnessMeter (fed in BLOCK blocks) and
          the limiter on 60 s of audio, old vs new, and how far apart their results are

Each figure is the best of ROUNDS runs (the machine is shared: the best is the least
disturbed). Usage:
    .venv/bin/python bench/dsp.py [--rounds N] [--seconds S]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import audio  # noqa: E402

RATE = 24000

CHILD = """
import json, sys, time
t, c = time.perf_counter(), time.process_time()
import numpy as np
import service.audio as audio
if sys.argv[1] == "old":
    import pyloudnorm, scipy.ndimage, scipy.signal
t1, c1 = time.perf_counter(), time.process_time()
x = np.zeros(4800, dtype=np.float32)
audio.resample(x, 22050, 24000), audio.true_peak_db(x), audio.LoudnessMeter(24000).feed(x)
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"import": [t1 - t, c1 - c], "first": [t2 - t1, c2 - c1]}))
"""


def child(which: str) -> dict[str, list[float]]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    result: dict[str, list[float]] = json.loads(out)
    return result


def import_figures(rounds: int) -> None:
    best: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):  # interleaved, so load hits both alike
        for which in ("new", "old"):
            r = child(which)
            prev = best.setdefault(which, r)
            for k in r:
                prev[k] = [min(a, b) for a, b in zip(prev[k], r[k], strict=True)]
    print("cold process, import of the audio path (best of", rounds, "runs)")
    print(f"  {'':34} {'wall ms':>9} {'CPU ms':>9}")
    for which, label in (
        ("old", "numpy + scipy + pyloudnorm (before)"),
        ("new", "numpy only (now)"),
    ):
        wall, cpu = best[which]["import"]
        print(f"  {label:34} {1e3 * wall:9.0f} {1e3 * cpu:9.0f}")
    saved = best["old"]["import"][1] - best["new"]["import"][1]
    print(f"  saved per cold process: {1e3 * saved:.0f} ms of CPU")
    wall, cpu = best["new"]["first"]
    print(f"  first calls (filter design), now: {1e3 * wall:.0f} ms wall, {1e3 * cpu:.0f} ms CPU")


def best_of(rounds: int, f: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(rounds):
        t = time.process_time()
        result = f()
        times.append(time.process_time() - t)
    return min(times), result


class LfilterKWeighting:
    """K-weighting on scipy's lfilter with pyloudnorm's coefficients, block by block, as
    LoudnessMeter ran it before."""

    def __init__(self) -> None:
        import pyloudnorm
        from scipy.signal import lfilter

        stages = pyloudnorm.Meter(RATE)._filters.values()
        self.stages = [(f.b, f.a, f.passband_gain) for f in stages]
        self.z = np.zeros((2, 2))
        self.lfilter = lfilter

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = np.asarray(x, dtype=np.float64)
        for i, (b, a, gain) in enumerate(self.stages):
            y, self.z[i] = self.lfilter(b, a, y, zi=self.z[i])
            y = gain * y
        return y


def meter(x: np.ndarray, old: bool) -> float:
    m = audio.LoudnessMeter(RATE)
    if old:
        m.filter = LfilterKWeighting()  # type: ignore[assignment]
    for a in range(0, len(x), audio.BLOCK):
        m.feed(x[a : a + audio.BLOCK])
    return m.integrated()


def old_limit(x: np.ndarray, rate: int, ceiling_db: float) -> np.ndarray:
    from scipy.ndimage import minimum_filter1d, uniform_filter1d
    from scipy.signal import resample_poly

    over = np.abs(resample_poly(x, 4, 1)).reshape(-1, 4).max(axis=1)
    need = np.minimum(1.0, 10 ** (ceiling_db / 20) / np.maximum(over, 1e-9))
    w = max(3, int(rate * 0.008))
    gain = uniform_filter1d(
        minimum_filter1d(need, size=2 * w + 1, mode="nearest"), size=w, mode="nearest"
    )
    limited: np.ndarray = (x * gain).astype(np.float32)  # numpy types x * gain as Any
    return limited


def speed_figures(rounds: int, seconds: float) -> None:
    from scipy.signal import resample_poly

    rng = np.random.default_rng(0)
    n = round(seconds * RATE)
    x = (rng.standard_normal(n) * 0.2 * np.sin(np.arange(n) / RATE * 3) ** 2).astype(np.float32)
    x22 = x[: round(seconds * 22050)]
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        (
            "resample 22050->24000",
            lambda: resample_poly(x22, 160, 147).astype(np.float32),
            lambda: audio.resample(x22, 22050, RATE),
        ),
        ("oversample4", lambda: resample_poly(x, 4, 1), lambda: audio.oversample4(x)),
        ("LoudnessMeter (LUFS)", lambda: meter(x, old=True), lambda: meter(x, old=False)),
        (
            "limit (4x gain)",
            lambda: old_limit(x * 4, RATE, -1.3),
            lambda: audio.limit(x * 4, RATE, -1.3),
        ),
    ]
    print(f"\n{seconds:g} s of {RATE} Hz audio, CPU ms (best of {rounds}), old scipy vs new numpy")
    print(f"  {'':22} {'scipy':>8} {'numpy':>8} {'new/old':>8} {'x realtime':>11}  max |diff|")
    for name, old, new in cases:
        t_old, r_old = best_of(rounds, old)
        t_new, r_new = best_of(rounds, new)
        diff = float(np.max(np.abs(np.asarray(r_old, np.float64) - np.asarray(r_new, np.float64))))
        print(
            f"  {name:22} {1e3 * t_old:8.1f} {1e3 * t_new:8.1f} {t_new / t_old:8.2f}"
            f" {seconds / t_new:11.0f}  {diff:.1e}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    import_figures(args.rounds)
    speed_figures(args.rounds, args.seconds)


if __name__ == "__main__":
    main()

"""Loudness stage benchmark: the bundled example's narration (examples/kv-cache-quantization.md,
espeak, ~62 s) is rendered in-process, then its mixed, un-normalised timeline is normalised
by the streamed passes (every pass limits and K-weights the track again) and by the passes
that reuse the first one's measurements (service/audio/passes.py), side by side: the median
of several runs of each, and the figures each gives (they agree within 0.01 LU).
Usage: .venv/bin/python bench/loudness.py [runs]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import audio as dsp  # noqa: E402
from service.audio.loudness import preload  # noqa: E402
from service.audio.stream import _blocks  # noqa: E402


def example_mix() -> tuple[np.ndarray, int]:
    """The timeline finalize normalises for the bundled example (captured as it passes)."""
    from tests.support.fleet import make_fleet

    caught: list[tuple[np.ndarray, int]] = []
    real = dsp.normalize_to_wav  # finalize calls it as service.audio's

    def catch(src: Any, rate: int, *args: Any, **kw: Any) -> Any:
        caught.append((np.concatenate([src.read(a, b) for a, b in _blocks(src.length)]), rate))
        return real(src, rate, *args, **kw)

    setattr(dsp, "normalize_to_wav", catch)  # noqa: B010
    try:
        fleet = make_fleet(Path(tempfile.mkdtemp(prefix="bench-loudness-")))
        script = (ROOT / "examples" / "kv-cache-quantization.md").read_bytes()
        with fleet.client() as c:
            files = {"script": ("example.md", script, "text/markdown")}
            c.post("/v1/jobs", files=files, data={"options": json.dumps({"engine": "espeak"})})
            fleet.work()
    finally:
        setattr(dsp, "normalize_to_wav", real)  # noqa: B010
    return caught[-1]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    x, rate = example_mix()
    preload(rate)
    print(f"timeline: {len(x) / rate:.1f} s at {rate} Hz, {runs} runs each (interleaved)")
    times: dict[bool, list[float]] = {False: [], True: []}
    figures: dict[bool, dsp.Loudness] = {}
    for _ in range(runs):
        for reuse in (False, True):
            t = time.perf_counter()
            _, figures[reuse] = dsp.normalize(x, rate, reuse=reuse)
            times[reuse].append(time.perf_counter() - t)
    medians = {reuse: statistics.median(ts) for reuse, ts in times.items()}
    for reuse, name in ((False, "streamed (old)"), (True, "reused (new)  ")):
        best = min(times[reuse])
        print(f"{name}: median {medians[reuse]:.3f} s, min {best:.3f} s  {figures[reuse]}")
    print(f"speed-up (medians): {medians[False] / medians[True]:.2f}x")


if __name__ == "__main__":
    main()

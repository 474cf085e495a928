"""Benchmark `narrate render` on the bundled example and a 90 s 1080x1920 video.

Prints per-stage wall time, the realtime factor with soft subtitles and with --burn-in, and
a bare ffmpeg ultrafast encode of the same video for comparison. Usage:
    .venv/bin/python bench/render.py
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import wiring  # noqa: E402
from service.config import Settings  # noqa: E402
from service.console import read_script  # noqa: E402
from service.domain.spec import RenderOptions  # noqa: E402

EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"
SECONDS = 90


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp, "bench.mp4")
        subprocess.run(
            ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s=1080x1920:r=30:d={SECONDS}",
             "-f", "lavfi", "-i", f"sine=f=220:d={SECONDS}:sample_rate=48000",
             "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac",
             "-shortest", str(video)],
            check=True,
        )  # fmt: skip
        t = time.perf_counter()
        subprocess.run(
            ["ffmpeg", "-v", "error", "-i", str(video), "-c:v", "libx264", "-preset", "ultrafast",
             "-c:a", "aac", "-y", str(Path(tmp, "bare.mp4"))],
            check=True,
        )  # fmt: skip
        bare = time.perf_counter() - t
        settings = Settings(
            data_dir=Path(tmp, "data"), tts_cache=False
        )  # cold: every pass synthesized
        pipeline = wiring.pipeline(settings)
        for burn_in in (False, True):
            t0 = time.perf_counter()
            spec = read_script(EXAMPLE)
            parse = time.perf_counter() - t0
            plan = pipeline.plan(spec, RenderOptions(engine="espeak", burn_in=burn_in), video)
            rendered = pipeline.render(plan, Path(tmp, f"out-{burn_in}"), video)
            manifest = rendered.manifest
            total = time.perf_counter() - t0
            stages = {"parse": parse, **rendered.timings}
            label = "burn-in" if burn_in else "soft subtitles"
            print(f"== {label}: {total:.2f} s end to end, realtime factor {total / SECONDS:.3f} "
                  f"({SECONDS} s video, {manifest['duration']:g} s narration)")  # fmt: skip
            for name, secs in stages.items():
                print(f"   {name:<11} {secs:7.3f} s")
            if burn_in:
                print(
                    f"   mux / bare ultrafast encode ({bare:.2f} s) = {stages['mux'] / bare:.2f}x"
                )
        print(f"bare ffmpeg ultrafast encode of the same video (video + AAC audio): {bare:.2f} s")
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"peak memory: narrate {own:.0f} MiB, largest child (ffmpeg etc.) {kids:.0f} MiB")
        print("note: synthesize and fit are summed over segments, which run 2 at a time")


if __name__ == "__main__":
    main()

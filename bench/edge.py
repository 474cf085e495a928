"""The edge-tts path on the local protocol server (devtools/edge_server.py).

Renders the bundled example with engine `edge` and prints requests per job, per-segment
latency (synthesis with every rate pass, and fit), and the share of fits that needed a
rubberband stretch beyond +-3 %; then renders it again to show the cache at work.
Usage: .venv/bin/python bench/edge.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.edge_server import EdgeServer  # noqa: E402
from service import wiring  # noqa: E402
from service.adapters.storage.local import LocalWorkspace  # noqa: E402
from service.cli.console import read_script  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.spec import RenderOptions  # noqa: E402

EXAMPLES = [ROOT / "examples" / "kv-cache-quantization.md", ROOT / "examples" / "en-tests-lie.md"]


def main() -> None:
    server = EdgeServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(data_dir=Path(tmp), edge_wss_url=server.url)
            pipeline = wiring.pipeline(settings)
            work = LocalWorkspace(Path(tmp, "work"))  # render_segment takes a Workspace
            stretched = fits = 0
            for example in EXAMPLES:
                spec = read_script(example)
                for run in ("cold", "cached"):
                    server.reset()
                    plan = pipeline.door.plan(spec, RenderOptions(engine="edge"))
                    t = time.perf_counter()
                    segs = [
                        pipeline.render_segment(plan, i, work) for i in range(len(spec.segments))
                    ]
                    wall = time.perf_counter() - t
                    print(f"== {example.name} ({run}): {server.requests} edge requests for "
                          f"{len(segs)} segments, {wall:.2f} s")  # fmt: skip
                    if run == "cached":
                        continue
                    for s in segs:
                        off = abs(s.stretch_ratio - 1) > 0.03
                        stretched += off
                        fits += 1
                        note = "  (beyond 3 %)" if off else ""
                        print(f"   segment {s.index + 1}: synth {s.timings['synthesize']:.2f} s "
                              f"fit {s.timings['fit']:.2f} s  native_rate {s.native_rate:.3f} "
                              f"stretch {s.stretch_ratio:.3f}{note}")  # fmt: skip
            print(f"fits needing rubberband beyond +-3 %: {stretched}/{fits}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

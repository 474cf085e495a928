"""The GAGAR script narrated with kokoro through the service's two workers, cold (a fresh data
directory: nothing in the TTS cache), as issue 32 measures it.

Prints: the job's wall time from submission to ``succeeded``, the narration's length, their
ratio (the aim: at most 0.6), the same for the script with the speech check off on a second
fresh stack (what the check adds), and each worker's peak resident memory (VmHWM of every
process in its tree: the Celery parent and its pool child). Usage:
    .venv/bin/python bench/kokoro_fleet.py [--script examples/gagar-grpo-quality-ranking.md]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.stack import Stack, start_stack, submit, wait_for  # noqa: E402
from service.voicepacks import kokoro  # noqa: E402


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for child in Path(f"/proc/{p}/task").glob("*/children"):
            todo += [int(c) for c in child.read_text().split()]
    return out


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def narrate(stack: Stack, script: str, check: bool) -> tuple[float, float]:
    """(wall seconds from submission to succeeded, narration seconds)."""
    with stack.client() as c:
        options = {"engine": "kokoro", "check_speech": check}
        t = time.perf_counter()
        r = submit(c, script, options=options)
        assert r.status_code == 202, r.text
        job = wait_for(c, r.json()["id"], timeout=1800)
        wall = time.perf_counter() - t
        assert job["status"] == "succeeded", job.get("error")
        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
    engines = {s["engine"] for s in manifest["segments"]}
    assert engines == {"kokoro"}, f"spoken by {engines}, not kokoro alone"
    return wall, sum(s["allotted"] for s in manifest["segments"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", type=Path, default=ROOT / "examples/gagar-grpo-quality-ranking.md")
    args = ap.parse_args()
    text = args.script.read_text(encoding="utf-8")
    for check in (True, False):
        # Each run on a stack of its own: a fresh data directory, so an empty TTS cache.
        with tempfile.TemporaryDirectory() as tmp:
            kokoro.install(Path(tmp), log=lambda _line: None)  # links to the set-up's pack
            stack = start_stack(Path(tmp), workers=2)
            try:
                wall, length = narrate(stack, text, check)
                label = "speech check on " if check else "speech check off"
                print(f"{label}: {wall:6.1f} s wall for {length:.1f} s of narration "
                      f"= {wall / length:.2f} x its length", flush=True)  # fmt: skip
                for name, pid in stack.worker_pids().items():
                    peaks = [peak_mb(p) for p in tree(pid)]
                    print(f"  {name}: peak RSS {max(peaks):.0f} MB (its processes: "
                          f"{', '.join(f'{p:.0f}' for p in peaks)} MB)")  # fmt: skip
            finally:
                stack.stop()


if __name__ == "__main__":
    main()

"""Short-video caption looks' cost (issue 37): the GAGAR example (three keywords marked and a
hook title) rendered with espeak onto a 92 s 1080x1920 video and burned in, as static, box
and pop captions, side by side in one run (rounds interleaved, the engine's cache warm after
a first render); the median wall time of each, its ratio to static (the aim: at most 1.15),
and the states the burn-in draws (service/adapters/ffmpeg/burn.py: one libass drawing each; the
word-by-word narration's stream + the rest's); then the burn-in alone (prepare, then one
ffmpeg: the overlay of the states and x264 ultrafast over the whole video, in one part)
from each render's subtitles.ass, the same way.

``--against DIR``: a checkout of another version of the code (e.g. ``git archive main | tar
-x -C DIR``), run by this checkout's interpreter with DIR first on its path; its renders are
interleaved with this one's, round by round and look by look, so the machine's load hits
both alike, and both tables are printed. The burn-in alone is then not measured (it runs
this checkout's code in-process).

    .venv/bin/python bench/looks.py [--rounds 2] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402
from service.adapters.ffmpeg.burn import (  # noqa: E402
    Burn,
    layers,
    listings,
    overlay_filters,
    prepare,
)
from service.config import get_settings  # noqa: E402
from tests.integration.ffmpeg.test_burn_looks import looks_script  # noqa: E402

LOOKS = ("static", "box", "pop")


def render(script: Path, video: Path, out: Path, look: str, code: Path | None = None) -> float:
    """One render's wall time; ``code``: a checkout whose code runs instead of this one's."""
    env = dict(os.environ, PYTHONPATH=str(code)) if code is not None else None
    argv = [
        str(ROOT / ".venv" / "bin" / "narrate"), "render", str(script), "--out", str(out),
        "--engine", "espeak", "--video", str(video), "--burn-in", "--captions", look,
        "--no-check-speech", "--on-overflow", "extend",
    ]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - t


def burn_only(ass: Path, video: Path, work: Path) -> float:
    """The burn-in of ``ass`` over ``video`` alone: its states prepared and one encode."""
    settings = get_settings()
    t = time.perf_counter()
    burn = prepare(ass, work / "canvas.rgb", 1080, 1920, settings, 30.0)
    argv = [settings.ffmpeg, "-v", "error", "-y", "-i", str(video)]
    for i, listed in enumerate(listings(burn, None, None)):
        listing = work / f"canvas{i}.txt"
        listing.write_text(listed, encoding="utf-8")
        argv += ["-f", "concat", "-safe", "0", "-i", str(listing)]
    graph = overlay_filters(burn, 1, "[0:v]")
    argv += ["-filter_complex", graph, "-c:v", "libx264", "-preset", "ultrafast", "-f", "null", "-"]
    subprocess.run(argv, check=True)
    return time.perf_counter() - t


def prepare_only(ass: Path, work: Path) -> Burn:
    """What ``ass``'s burn-in draws: its streams of states."""
    return prepare(ass, work / "canvas.rgb", 1080, 1920, get_settings(), 30.0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--against", type=Path, help="another checkout, rendered interleaved")
    args = p.parse_args()
    rounds, against = args.rounds, args.against
    with tempfile.TemporaryDirectory(prefix="narrate-looks-") as tmp:
        work = Path(tmp)
        script = work / "gagar.md"
        script.write_text(looks_script(), encoding="utf-8")
        video = make_video(work / "v.mp4", 92, audio=False)
        render(script, video, work / "warm", "static")  # the engine's cache, the fonts
        codes: dict[str, Path | None] = {"this": None}
        if against is not None:
            codes["against"] = against.resolve()
        times: dict[tuple[str, str], list[float]] = {(c, k): [] for c in codes for k in LOOKS}
        for _ in range(rounds):
            for look in LOOKS:
                for c, code in codes.items():
                    times[c, look].append(render(script, video, work / c / look, look, code))
        print(f"GAGAR, espeak, 92 s 1080x1920 burn-in; median of {rounds} renders each")
        drawn = {look: prepare_only(work / "this" / look / "subtitles.ass", work) for look in LOOKS}
        for c in codes:
            base = statistics.median(times[c, "static"])
            print(f"{c}: {codes[c] or ROOT}")
            print(f"{'look':8} {'seconds':>8} {'x static':>9} {'states':>9}")
            for look in LOOKS:
                states = "+".join(str(len(b.marks)) for b in layers(drawn[look]))
                med = statistics.median(times[c, look])
                print(f"{look:8} {med:8.2f} {med / base:9.3f} {states:>9}")
        if against is None:
            burn_alone(work, video, rounds)


def burn_alone(work: Path, video: Path, rounds: int) -> None:
    """The burn-in alone of each look's render, interleaved the same way."""
    alone: dict[str, list[float]] = {look: [] for look in LOOKS}
    for _ in range(rounds):
        for look in LOOKS:
            alone[look].append(burn_only(work / "this" / look / "subtitles.ass", video, work))
    base = statistics.median(alone["static"])
    print("the burn-in alone (prepare + one overlay/x264 ultrafast encode, one part)")
    for look in LOOKS:
        med = statistics.median(alone[look])
        print(f"{look:8} {med:8.2f} {med / base:9.3f}")


if __name__ == "__main__":
    main()

"""How cost grows with the work: parse and plan time for 10/100/1,000 segments, render time
for 10/100/1,000 segments, and render time and peak memory for 1/10/60-minute timelines.

Every render is `Pipeline.render` with espeak-ng (offline), each case in its own process so
its peak RSS is its own. Renders share one TTS cache, warmed by a cold 10-segment run first,
so the 100/1,000-segment and timeline figures are the pipeline's own cost per segment and
per minute (fitting, mixing, loudness, subtitles), not espeak's. Usage:
    .venv/bin/python bench/scale.py            # a few minutes on two cores
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SENTENCES = [
    "评分员对通过的轨迹排序，低排名降权。",
    "代码 Agent 的 RL 用测试当奖励。",
    "再叠 GRPO 做组内相对策略优化。",
    "量化把显存占用降到一半。",
    "长上下文的瓶颈在 KV cache。",
    "按比例 rescale，保持优势总和不变。",
    "结果只在两个基准上报告。",
    "这一段只是过渡。",
    "仓库没有给出训练脚本。",
    "下一步看更大的模型。",
]
LONG_TEXT = ("代码 Agent 的 RL 用测试当奖励，再叠 GRPO 做组内相对策略优化。" * 80)[:2000]


def segments_script(n: int, seconds: float) -> dict[str, Any]:
    """n back-to-back segments of one short sentence each (10 distinct texts)."""
    return {
        "language": "zh",
        "segments": [{"text": SENTENCES[i % 10], "seconds": seconds} for i in range(n)],
    }


def timeline_script(minutes: float) -> dict[str, Any]:
    """Six 4 s segments spread with `start` over the timeline, the last ending at its end,
    and an overlay across all of it: the work is the timeline, not the speech."""
    total = minutes * 60
    starts = [round(k * (total - 4) / 5, 3) for k in range(6)]
    return {
        "language": "zh",
        "segments": [
            {"text": SENTENCES[k], "seconds": 4, "start": s} for k, s in enumerate(starts)
        ],
        "overlays": [{"text": "限定语：只在两个基准上报告", "start": 0, "end": total}],
    }


# -- child: one case, in its own process ---------------------------------------------------
def run_case(case: str, arg: float, data_dir: Path) -> dict[str, Any]:
    from service import wiring
    from service.config import Settings
    from service.domain.spec import RenderOptions, spec_from_data

    settings = Settings(data_dir=data_dir, max_timeline=3600.0)
    pipeline = wiring.pipeline(settings)
    options = RenderOptions(engine="espeak")
    if case == "plan":
        n = int(arg)
        data = {
            "segments": [
                {
                    "text": f"第{i}段" + LONG_TEXT[: 2000 - len(f"第{i}段")],
                    "seconds": 3600 / max(n, 6),
                }
                for i in range(n)
            ],
            "fit": {"on_overflow": "squeeze"},
        }
        t = time.perf_counter()
        spec = spec_from_data(data)
        pipeline.door.plan(spec, options)
        first = time.perf_counter() - t
        # Each segment task plans the job again from its stored record, in a worker process
        # that has planned it before.
        stored = spec.model_dump(mode="json")
        t = time.perf_counter()
        pipeline.door.plan(spec_from_data(stored), options)
        return {"seconds": first, "again": time.perf_counter() - t}
    data = segments_script(int(arg), 3.6) if case == "segments" else timeline_script(arg)
    spec = spec_from_data(data)
    t = time.perf_counter()
    plan = pipeline.door.plan(spec, options)
    with tempfile.TemporaryDirectory(dir=data_dir) as out:
        rendered = pipeline.render(plan, Path(out, "out"))
    return {
        "seconds": time.perf_counter() - t,
        "timeline": rendered.manifest.duration,
        "lufs": rendered.manifest.loudness.integrated_lufs,
        "dbtp": rendered.manifest.loudness.true_peak_dbtp,
        "timings": rendered.timings,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def case(name: str, arg: float, data_dir: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--case", name, "--arg", str(arg), "--data", str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def parse_times() -> None:
    from service.domain.script import parse_markdown

    for n in (10, 100, 1000):
        text = (
            "\n\n".join(f"[段 {i + 1} · 3.6 秒] {SENTENCES[i % 10]}" for i in range(n))
            + "\n\n"
            + "Shot 1 ·"
            + " " * 20_000
            + "x"
        )  # and a probe string, 20 KB
        t = time.perf_counter()
        parse_markdown(text)
        took = time.perf_counter() - t
        print(f"parse  {n:>5} segments ({len(text) / 1024:6.1f} KB): {took * 1000:8.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case")
    ap.add_argument("--arg", type=float, default=0)
    ap.add_argument("--data", type=Path)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.arg, args.data)))
        return

    parse_times()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        for n in (10, 100, 1000):
            r = case("plan", n, data)
            print(
                f"plan   {n:>5} segments x 2,000 chars: {r['seconds']:7.3f} s "
                f"({r['seconds'] / n * 1000:.2f} ms/segment); again, as each segment task "
                f"does: {r['again']:.3f} s"
            )
        cold = case("segments", 10, data)
        print(
            f"render    10 segments, cold TTS cache: {cold['seconds']:7.2f} s "
            f"({cold['seconds'] / 10:.3f} s/segment), peak RSS {cold['rss_mib']:.0f} MiB"
        )
        for n in (10, 100, 1000):
            r = case("segments", n, data)
            st = r["timings"]
            print(
                f"render {n:>5} segments, warm: {r['seconds']:7.2f} s "
                f"({r['seconds'] / n:.3f} s/segment; {r['timeline']:g} s timeline; "
                f"subtitles {st['subtitles']:.2f} s, loudness {st['loudness']:.2f} s), "
                f"peak RSS {r['rss_mib']:.0f} MiB, {r['lufs']} LUFS / {r['dbtp']} dBTP"
            )
        for minutes in (1, 10, 60):
            r = case("timeline", minutes, data)
            st = r["timings"]
            print(
                f"render {minutes:>2}-minute timeline (6 segments), warm: {r['seconds']:7.2f} s "
                f"(loudness {st['loudness']:.2f} s), peak RSS {r['rss_mib']:.0f} MiB, "
                f"{r['lufs']} LUFS / {r['dbtp']} dBTP"
            )


if __name__ == "__main__":
    main()

"""Pronunciation dictionaries at their limits: a 5,000-rule PLS file read and written, and the
door's cost for a job naming 10 such dictionaries (resolved from the store and planned) beside
the same job naming none, with the plan's size as the job record keeps it. Medians of RUNS.
Usage:
    .venv/bin/python bench/lexicons.py [RUNS]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service import wiring  # noqa: E402
from service.adapters.memory.lexicons import MemoryLexicons  # noqa: E402
from service.config import Settings  # noqa: E402
from service.domain.lexicons import MAX_RULES, Rule, Rules  # noqa: E402
from service.domain.options import RenderOptions  # noqa: E402
from service.domain.pls import read_pls, write_pls  # noqa: E402
from service.domain.spec import spec_from_data  # noqa: E402
from service.jobs.lexicons import Lexicons  # noqa: E402

HANZI = [chr(c) for c in range(0x4E00, 0x4E00 + MAX_RULES)]


def rules(offset: int) -> list[Rule]:
    """5,000 two-character words read as pinyin (the first dictionary has 单先 -> shan4 xian1)."""
    return [
        Rule(grapheme=HANZI[(i + offset) % MAX_RULES] + "先", kind="pinyin", value="shan4 xian1")
        for i in range(MAX_RULES)
    ]


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(runs: int) -> None:
    pls = write_pls(rules(0), "zh-CN").encode()
    print(f"PLS of {MAX_RULES} rules: {len(pls) / 1024:.0f} KiB")
    print(f"  read (expat, checked): {median_ms(lambda: read_pls(pls), runs):.0f} ms")
    print(
        f"  write:                 {median_ms(lambda: write_pls(rules(0), 'zh-CN'), runs):.0f} ms"
    )

    store = Lexicons(MemoryLexicons())
    ids = [store.create("t", Rules(name=f"d{i}", rules=rules(i * 7))).id for i in range(10)]
    pipeline = wiring.pipeline(Settings(data_dir=Path("/tmp/narrate-bench-lexicons")))
    text = "单先生明天到上海,他说这一段的读音要对。" * 3
    spec = spec_from_data(
        {"title": "t", "language": "zh", "segments": [{"text": text, "seconds": 12}]}
    )
    for named in ([], ids):
        options = RenderOptions(engine="espeak", lexicons=list(named))

        def door(options: RenderOptions = options) -> int:
            opts, used = store.resolve("t", options)
            plan = pipeline.door.plan(spec, opts, lexicons=used)
            pipeline.plan_lexicon(plan)  # what each segment task builds
            return len(plan.model_dump_json())

        size, ms = door(), median_ms(door, runs)
        what = f"a job naming {len(named):>2} dictionaries"
        print(f"{what}: door {ms:5.0f} ms, plan {size / 1024:.1f} KiB")
    whole = sum(len(u.model_dump_json()) for u in store.resolve("t", options)[1])
    print(f"  (their entries unfiltered would add {whole / 1024:.0f} KiB to every job record)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)

"""Benchmark the word segmenter against jieba, side by side, each figure from fresh processes.

Prints, for jieba (cut + posseg.cut, HMM off, EXTRA_WORDS added, its /tmp marshal cache warm,
as the service ran before) and for the index-backed segmenter: the cold first call (imports,
dictionary, one sentence segmented and tagged) in wall time and CPU, the index build (empty
cache dir, and the build alone), and the time per KB of the examples (first pass in a process,
then again when warm). Medians of RUNS processes. Usage:
    .venv/bin/python bench/segmenter.py [RUNS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.adapters.text.added_words import EXTRA_WORDS  # noqa: E402

EXTRA = dict(EXTRA_WORDS)  # given to jieba's processes as a literal: they import no narrate code
SENTENCE = "评分员对通过的轨迹排序,数据集上的大模型用 8bit 量化。"

_CLOCK = "import time; w0 = time.perf_counter(); c0 = time.process_time()\n"
_DONE = "print(json.dumps([time.perf_counter() - w0, time.process_time() - c0]))\n"

JIEBA_FIRST = f"""{_CLOCK}import json, logging
import jieba, jieba.posseg
EXTRA_WORDS = {EXTRA!r}
jieba.setLogLevel(logging.WARNING)
jieba.initialize()
for w, t in EXTRA_WORDS.items():
    jieba.add_word(w, freq=50000, tag=t)
list(jieba.cut({SENTENCE!r}, HMM=False))
[(p.word, p.flag) for p in jieba.posseg.cut({SENTENCE!r}, HMM=False)]
{_DONE}"""

OURS_FIRST = f"""{_CLOCK}import json
from service.adapters.text.segmenter import cjk_words, tagged_words
cjk_words({SENTENCE!r})
tagged_words({SENTENCE!r})
{_DONE}"""

BUILD_ONLY = f"""import json, time
from service.adapters.text import wordindex
path = wordindex.dict_path()
{_CLOCK}wordindex.build_bytes(path, "bench")
{_DONE}"""

_PER_KB = """
import glob, json, time
texts = [open(p, encoding="utf-8").read() for p in sorted(glob.glob("examples/*.md"))]
kb = sum(len(t.encode()) for t in texts) / 1024
out = []
for _ in range(2):
    t0 = time.perf_counter()
    for t in texts:
        for line in t.splitlines():
            cut(line)
            tag(line)
    out.append((time.perf_counter() - t0) / kb * 1000)
print(json.dumps(out))
"""

JIEBA_PER_KB = (
    f"""import logging, jieba, jieba.posseg
EXTRA_WORDS = {EXTRA!r}
jieba.setLogLevel(logging.WARNING)
jieba.initialize()
for w, t in EXTRA_WORDS.items():
    jieba.add_word(w, freq=50000, tag=t)
cut = lambda s: list(jieba.cut(s, HMM=False))
tag = lambda s: list(jieba.posseg.cut(s, HMM=False))
"""
    + _PER_KB
)

OURS_PER_KB = (
    """from service.adapters.text.segmenter import segmenter
seg = segmenter()
cut, tag = seg.cut, seg.tag_cut  # not the lru-cached functions: each pass does the work
"""
    + _PER_KB
)


def run(code: str, cache: Path) -> list[float]:
    env = {**os.environ, "NARRATE_SEGMENTER_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [float(x) for x in json.loads(out.stdout.strip().splitlines()[-1])]


def median_of(runs: int, code: str, cache: Path, fresh_cache: bool = False) -> list[float]:
    results = []
    for i in range(runs):
        where = cache / f"fresh{i}" if fresh_cache else cache
        results.append(run(code, where))
    return [statistics.median(col) for col in zip(*results, strict=True)]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        run(OURS_FIRST, cache)  # build the index once, so "cold" means a cold process only
        j_first = median_of(runs, JIEBA_FIRST, cache)
        o_first = median_of(runs, OURS_FIRST, cache)
        o_build_first = median_of(runs, OURS_FIRST, cache, fresh_cache=True)
        build = median_of(runs, BUILD_ONLY, cache)
        j_kb = median_of(runs, JIEBA_PER_KB, cache)
        o_kb = median_of(runs, OURS_PER_KB, cache)
    print(f"segmenter vs jieba, medians of {runs} fresh processes each")
    print(f"{'':44} {'jieba':>10} {'segmenter':>10} {'ratio':>7}")
    rows = [
        ("cold first call, wall (ms)", j_first[0], o_first[0]),
        ("cold first call, CPU (ms)", j_first[1], o_first[1]),
        ("first call with no cache file, wall (ms)", j_first[0], o_build_first[0]),
        ("first call with no cache file, CPU (ms)", j_first[1], o_build_first[1]),
        ("per KB of examples, first pass (ms)", j_kb[0], o_kb[0]),
        ("per KB of examples, warm (ms)", j_kb[1], o_kb[1]),
    ]
    for name, j, o in rows:
        print(f"{name:44} {j * (1000 if 'call' in name else 1):10.1f} "
              f"{o * (1000 if 'call' in name else 1):10.1f} {o / j:7.2f}")  # fmt: skip
    print(f"index build alone (build_bytes): {build[0] * 1000:.0f} ms wall, "
          f"{build[1] * 1000:.0f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    main()

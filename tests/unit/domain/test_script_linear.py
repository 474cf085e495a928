"""Parsing a script costs time linear in its size, whatever the text: no pattern backtracks.

The probe's strings (a shot line with 2,000 spaces: 12.7 s; ``"[Seg1 " * 8000``: 13 s) are
explicit examples; hypothesis builds more from the fragments the patterns look for, each
run long: a fragment repeated between a prefix and a suffix, the shape that makes a
backtracking pattern retry every split of the run.
"""

from __future__ import annotations

import contextlib
import gc
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from service.domain.errors import ScriptError
from service.domain.script import MAX_SCRIPT_CHARS, MAX_SCRIPT_LINES, parse_script

SECONDS_PER_KB = 0.02  # linear parsing takes ~0.01 ms per KB; generous for a loaded machine
FLOOR = 0.25  # seconds: start-up noise on tiny inputs

FRAGMENTS = [
    "Shot 1 ·",
    "镜头 2 · ",
    "[Seg1 ",
    "[段 1 · ",
    "[Segment 3 · 4s ",
    "[段 1 · 3 秒] ",
    "3 秒",
    "0-4s",
    " - 时长:",
    " - 屏幕文字:",
    "标题:",
    "字幕层叠加限定语:",
    "说话人: a=b;",
    " · 说话人: ",
    "· 语速:+1%",
    "声音:",
    "Title:",
    "# ",
    "1. ",
    "·",
    "・",
    " ",
    "\t",
    "[",
    "]",
    "(",
    ")",
    "（",
    "1",
    ".5",
    "-",
    "s",
    "秒",
    ":",
    "x",
    "字",
    "\n",
]
fragment = st.sampled_from(FRAGMENTS)
glue = st.lists(fragment, max_size=6).map("".join)


def parse_cpu_seconds(text: str) -> float:
    """CPU time of this thread alone: the process's also counts threads other tests leave
    running in this worker (an S3 server, an API under test), which made the bound flaky.
    The collector is off meanwhile: a full collection of the heap earlier tests left in this
    worker (0.45 s for a 1.6 kB script, once) is not the parser's cost."""
    gc.disable()
    try:
        t = time.thread_time()
        with contextlib.suppress(ScriptError):
            parse_script(text)
        return time.thread_time() - t
    finally:
        gc.enable()


def bound(text: str) -> float:
    return FLOOR + SECONDS_PER_KB * len(text.encode()) / 1024


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prefix=glue,
    run=st.lists(fragment, min_size=1, max_size=3).map("".join),
    times=st.integers(200, 4000),
    suffix=glue,
)
@example(prefix="Shot 1 ·", run=" ", times=2000, suffix="x")
@example(prefix="", run="[Seg1 ", times=8000, suffix="")
@example(prefix="标题:a", run=" ", times=4000, suffix="(b")
@example(prefix="[段 1 · 3 秒] 好\n镜头 1 · a", run=" ", times=4000, suffix="· 1")
@example(prefix="[段 1 · 3 秒 x", run=" · 语速: +1%", times=2000, suffix="] 好")
@example(prefix="[段 1 · 3 秒 · 声音:", run=" ", times=4000, suffix="x] 好")
def test_parsing_is_linear_in_the_input(prefix: str, run: str, times: int, suffix: str) -> None:
    text = prefix + run * times + suffix
    took = parse_cpu_seconds(text)
    assert took <= bound(text), f"{len(text)} characters took {took:.2f} s"


def test_a_large_real_script_parses_in_linear_time() -> None:
    line = "[段 {i} · 3 秒 钩子] 代码 Agent 的 RL 用测试当奖励,再叠 GRPO 做优化。\n"
    text = "".join(line.format(i=i) for i in range(1, 5001))  # ~0.4 MB, far beyond 200 segments
    took = parse_cpu_seconds(text)
    assert took <= bound(text)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("x" * (MAX_SCRIPT_CHARS + 1), f"over the limit of {MAX_SCRIPT_CHARS}"),
        ("[段 1 · 3 秒] 好\n" + "\n" * MAX_SCRIPT_LINES, f"over the limit of {MAX_SCRIPT_LINES}"),
        ('{"segments": [' + " " * MAX_SCRIPT_CHARS + "]}", "characters, over the limit"),
    ],
)
def test_oversized_scripts_are_refused_with_the_limit(text: str, needle: str) -> None:
    with pytest.raises(ScriptError, match="over the limit") as err:
        parse_script(text)
    assert needle in str(err.value)

"""A pytest plugin that says where the suite's CPU goes, by test file: wall seconds, the
test process's own CPU seconds and its reaped children's (stacks, ffmpeg, engines, the CLI).

The suite is CPU-bound on two cores, so its wall time follows its CPU seconds, and a loaded
machine inflates wall time but hardly CPU time: this is the figure to compare across runs.
scripts/test.sh loads it (``-p devtools.testcpu``) and it prints the costliest files after
the tests; each xdist worker writes its totals to ``NARRATE_TEST_CPU_DIR`` (a temporary
directory by default) for the controller to add up."""

from __future__ import annotations

import json
import os
import resource
import tempfile
import time
from collections.abc import Generator
from pathlib import Path

import pytest

SHOWN = 20
_totals: dict[str, list[float]] = {}  # file -> [wall, own CPU, children's CPU]


def _clock() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.monotonic(), own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    # the protocol holds setup, call and teardown, a module's fixtures' included
    before = _clock()
    yield
    after = _clock()
    row = _totals.setdefault(item.nodeid.split("::")[0], [0.0, 0.0, 0.0])
    for k in range(3):
        row[k] += after[k] - before[k]


def _folder() -> Path:
    # the controller picks it before its workers start (they inherit the environment)
    if "NARRATE_TEST_CPU_DIR" not in os.environ:
        os.environ["NARRATE_TEST_CPU_DIR"] = tempfile.mkdtemp(prefix="narrate-testcpu-")
    return Path(os.environ["NARRATE_TEST_CPU_DIR"])


def pytest_configure(config: pytest.Config) -> None:
    _folder()


def pytest_sessionfinish(session: pytest.Session) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (_folder() / f"{worker}.json").write_text(json.dumps(_totals))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    merged: dict[str, list[float]] = {}
    for part in _folder().glob("*.json"):
        for name, row in json.loads(part.read_text()).items():
            merged[name] = [a + b for a, b in zip(merged.get(name, [0.0] * 3), row, strict=True)]
    if not merged:
        return
    cpu = sum(r[1] + r[2] for r in merged.values())
    terminalreporter.section(f"CPU by test file ({cpu:.0f} CPU s in all)")
    terminalreporter.write_line(f"{'CPU s':>7} {'own':>6} {'kids':>6} {'wall s':>7}  file")
    ranked = sorted(merged.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
    for name, (wall, own, kids) in ranked[:SHOWN]:
        line = f"{own + kids:7.1f} {own:6.1f} {kids:6.1f} {wall:7.1f}  {name}"
        terminalreporter.write_line(line)

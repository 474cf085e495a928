"""A real stack for service tests (devtools/stack.py): redis-server on its own port (AOF),
Celery worker processes and uvicorn, each a subprocess that the fixtures start and stop.

``start_stack(..., faults="segment_sleep=1.5,crash_on=WORD")`` runs the workers and the API
from tests/support/faults.py, which inject those faults; production code has no such hooks."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools import stack as devstack
from devtools.stack import Stack, free_port, submit, wait_for

__all__ = [
    "Stack",
    "chromium",
    "free_port",
    "needs_chromium",
    "start_stack",
    "submit",
    "wait_for",
]


def start_stack(
    tmp: Path,
    workers: int = 2,
    faults: str = "",
    env: dict[str, str] | None = None,
    **settings: Any,
) -> Stack:
    if not faults:
        return devstack.start_stack(tmp, workers, env=env, **settings)
    return devstack.start_stack(
        tmp,
        workers,
        worker_app="tests.support.faults:worker_app",
        api_app="tests.support.faults:api_app",
        env={"NARRATE_TEST_FAULTS": faults, **(env or {})},
        **settings,
    )


# The browser tests' marker: they run where Debian's browser and its driver are installed.
needs_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Debian's chromium and chromium-driver (scripts/setup.sh installs them)",
)


@contextlib.contextmanager
def chromium(profile: Path, *flags: str, logs: tuple[str, ...] = ("browser",)) -> Iterator[Any]:
    """Debian's headless Chromium through chromedriver (Selenium), with its own profile, the
    ``flags`` a test needs, and the logs it reads (``browser``: console and CSP reports;
    ``performance``: the network events)."""
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", *flags,
    ):  # fmt: skip
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", dict.fromkeys(logs, "ALL"))
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=opts, service=service)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()

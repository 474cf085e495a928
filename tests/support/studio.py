"""What the studio page's browser tests (test_studio.py, test_studio_workbench.py) share: a
stack started and stopped around a block, the browser they drive it with, the wait for a
condition, the sign-in, the two screen sizes, full-page screenshots and axe-core's check.
Each test file keeps its own fixtures (their scopes differ: the workbench shares one stack
and one browser across its module), built from these."""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.stack import Stack, chromium, start_stack

pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# STUDIO_SCREENSHOTS=docs/screenshots: the tests save each view they look at there.
SHOTS = (
    Path(os.environ.get("STUDIO_SCREENSHOTS", "")) if os.environ.get("STUDIO_SCREENSHOTS") else None
)
SIZES = {"desktop": (1440, 900, False), "phone": (390, 844, True)}


@contextlib.contextmanager
def running_stack(
    tmp: Path, workers: int = 2, faults: str = "", **settings: Any
) -> Iterator[Stack]:
    """A stack (start_stack's arguments) for the block, stopped after it."""
    s = start_stack(tmp, workers, faults, **settings)
    try:
        yield s
    finally:
        s.stop()


@contextlib.contextmanager
def studio_browser(profile: Path, height: int = 900) -> Iterator[Any]:
    """Chromium 1440 px wide that plays media without a gesture (auditions, the preview);
    its browser log has the page's console and CSP reports."""
    flags = ("--autoplay-policy=no-user-gesture-required", f"--window-size=1440,{height}")
    with chromium(profile, *flags) as driver:
        yield driver


# A wait's floor: a test names the wait it expects on a quiet host, but a page on a loaded
# one (two CI runs at once) may take many times that; a longer bound costs a passing test
# nothing.
FLOOR = 60.0


def until(driver: Any, timeout: float, cond: Any, what: str) -> Any:
    """``cond(driver)`` polled until truthy (its value) or ``timeout`` (at least FLOOR); the
    page redraws its tables as events arrive, so an element read mid-redraw (stale, gone) is
    read again."""
    return WebDriverWait(
        driver,
        max(timeout, FLOOR),
        poll_frequency=0.1,
        ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
    ).until(cond, message=what)


def sign_in(driver: Any, key: str) -> None:
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()


def _laid_out(driver: Any, width: int) -> None:
    # The page has re-laid itself out at the new width (two animation frames later).
    WebDriverWait(driver, 10).until(
        lambda d: (
            d.execute_async_script(
                "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame("
                "() => done(window.innerWidth)));"
            )
            == width
        )
    )


def at_size(driver: Any, size: str) -> None:
    """The page emulated at one of SIZES ("desktop", "phone"), laid out at that width."""
    width, height, mobile = SIZES[size]
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )
    _laid_out(driver, width)


def screenshot(driver: Any, path: Path, width: int, mobile: bool) -> None:
    """A full-page PNG at ``width`` CSS pixels."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile},
    )
    _laid_out(driver, width)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        },
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def axe_views(driver: Any, view: str) -> list[str]:
    """axe-core's violations of the current view at both sizes (saved as screenshots with
    STUDIO_SCREENSHOTS set); an empty list when axe-core could not be packed."""
    from tests.support.axe import axe_source, violations

    source = axe_source()
    found: list[str] = []
    for size in SIZES:
        at_size(driver, size)
        if source is not None:
            found += [f"{size}: {v}" for v in violations(driver, source)]
        if SHOTS is not None:
            screenshot(driver, SHOTS / f"studio-{view}-{size}.png", SIZES[size][0], SIZES[size][2])
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return found

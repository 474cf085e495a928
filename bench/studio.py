"""Studio page benchmark, in headless Chromium against the real stack (Redis, 2 workers).

Prints the page weight (raw and gzip), the page's load (navigation to its modules run)
on a first visit and again from the browser's cache, and for the bundled example
(examples/kv-cache-quantization.md, espeak, a generated 63 s 360x640 video) the time from
the Submit click to a playable preview, cold (empty TTS cache) and warm (same script again),
and from the Re-render click of a one-segment fix to its preview, with TTS calls per job.
Usage: .venv/bin/python bench/studio.py
"""

from __future__ import annotations

import gzip
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.media import make_video  # noqa: E402
from devtools.stack import start_stack  # noqa: E402

BUNDLED_EXAMPLE = ROOT / "examples" / "kv-cache-quantization.md"


def browser(profile: Path) -> Any:
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--window-size=1440,1000",
    ):  # fmt: skip
        opts.add_argument(flag)
    return webdriver.Chrome(
        options=opts, service=webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    )


def wait(driver: Any, cond: Any, timeout: float = 300) -> Any:
    return WebDriverWait(
        driver, timeout, poll_frequency=0.05, ignored_exceptions=(WebDriverException,)
    ).until(cond)


def preview_ready(driver: Any) -> bool:
    return bool(
        driver.find_element(By.ID, "preview").is_displayed()
        and driver.execute_script("return document.getElementById('player').readyState >= 1")
    )


def job_id(driver: Any) -> str:
    return str(driver.find_element(By.ID, "job-meta").text.split()[1])


# The page's own files as the browser fetched them, each one's bytes over the wire (from its
# cache: a 304's headers alone, the server answering the file's ETag).
FETCHED = """return performance.getEntriesByType('resource')
  .filter(e => e.name.includes('/studio/')).map(e => e.transferSize)"""


def page_load(driver: Any, url: str) -> tuple[float, int, int]:
    """Navigation to the page's modules run (the sign-in line says whether a key is saved):
    seconds, the page's files, bytes over the wire for them."""
    t = time.monotonic()
    driver.get(url + "/")
    wait(driver, lambda d: d.find_element(By.ID, "who").text)
    took = time.monotonic() - t
    files = driver.execute_script(FETCHED)
    return took, len(files), sum(files)


def submit(driver: Any, url: str, video: Path) -> float:
    driver.get(url + "/")
    wait(
        driver,
        lambda d: (
            d.find_element(By.ID, "jobs-msg").text
            or d.find_elements(By.CSS_SELECTOR, "#job-list li")
        ),
    )
    script = BUNDLED_EXAMPLE.read_text(encoding="utf-8")
    driver.execute_script("document.getElementById('script').value = arguments[0]", script)
    driver.find_element(By.ID, "video").send_keys(str(video))
    Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
    t = time.monotonic()
    driver.find_element(By.ID, "submit").click()
    wait(driver, preview_ready)
    return time.monotonic() - t


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        stack = start_stack(base / "stack", workers=2, max_video_bytes=50_000_000)
        driver = None
        try:
            page = httpx.get(stack.url + "/").content
            assets = [page] + [
                httpx.get(stack.url + a.decode()).content
                for a in re.findall(rb'(?:src|href)="(/[^"]+)"', page)
            ]
            raw = sum(len(a) for a in assets)
            packed = sum(len(gzip.compress(a)) for a in assets)
            print(
                f"page weight: {raw / 1000:.1f} kB raw, {packed / 1000:.1f} kB gzip, "
                f"{len(assets)} files"
            )

            video = make_video(base / "clip.mp4", 63, size="360x640", fps=15)
            driver = browser(base / "profile")
            for visit in ("first visit", "again (browser cache)"):
                took, files, sent = page_load(driver, stack.url)
                print(
                    f"page load to its modules run, {visit}: {took * 1000:.0f} ms, "
                    f"{files} files, {sent / 1000:.1f} kB over the wire"
                )
            driver.find_element(By.ID, "key").send_keys(stack.keys["alpha"])
            driver.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
            client = stack.client("alpha")

            def calls(jid: str) -> int:
                return sum(
                    s["tts_calls"] or 0 for s in client.get(f"/v1/jobs/{jid}").json()["segments"]
                )

            cold = submit(driver, stack.url, video)
            print(
                f"submit -> preview, cold TTS cache: {cold:.1f} s "
                f"({calls(job_id(driver))} TTS calls)"
            )
            warm = submit(driver, stack.url, video)
            first = job_id(driver)
            print(f"submit -> preview, warm TTS cache: {warm:.1f} s ({calls(first)} TTS calls)")

            box = driver.find_element(By.ID, "fix-text-3")
            box.clear()
            box.send_keys("如果你在做长上下文服务,值得先试这一步。")
            t = time.monotonic()
            driver.find_element(By.ID, "rerender").click()
            wait(driver, lambda d: job_id(d) != first)
            wait(driver, preview_ready)
            fix = time.monotonic() - t
            print(f"one-segment fix -> preview: {fix:.1f} s ({calls(job_id(driver))} TTS calls)")
        finally:
            if driver is not None:
                driver.quit()
            stack.stop()


if __name__ == "__main__":
    main()

"""The speech check in the studio, in a real browser against a real stack with the real
recogniser: a job whose zh-baker segments are heard otherwise shows them flagged in the
segments table, what was heard under the script with the differences marked, and one click
re-renders the job with on_mismatch retry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.voicepacks import zh_baker
from tests.integration.stack.test_batches import wait_batch
from tests.support.stack import needs_chromium, wait_for
from tests.support.studio import (
    SHOTS,
    running_stack,
    screenshot,
    sign_in,
    studio_browser,
    until,
)

pytestmark = needs_chromium
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

# zh-baker reads English badly (bench/speech_check.py): segment 1 is heard at about twice the
# check's 25 % threshold (its 我们用 as 我没有, its 做 dropped), far from the edge on any CPU;
# segment 2 is heard as written. (One of each: every segment costs a synthesis and a
# recognition per render, and a second flagged one takes the page's same path.)
SPEC = {
    "title": "语音校对",
    "language": "zh",
    "voice": "zh-baker",
    "segments": [
        {
            "text": "我们用 reinforcement learning 做 dynamic sampling。",
            "seconds": 8,
        },
        {"text": "今天的天气很好，我们一起去公园散步吧。", "seconds": 6},
    ],
}


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    with studio_browser(tmp_path / "profile", height=1000) as driver:
        yield driver


def test_flagged_segments_show_what_was_heard_and_one_click_retries_them(
    tmp_path: Path, browser: Any
) -> None:
    if not any(zh_baker.default_cache().glob("zh-baker-*/pack.json")):
        pytest.skip("needs the zh-baker voice (narrate voices install zh-baker --accept-license)")
    data = tmp_path / "stack"  # zh-baker installed from the cache (licence accepted for the test)
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli.main",
            "voices",
            "install",
            "zh-baker",
            "--accept-license",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NARRATE_DATA_DIR": str(data)},
    )
    assert installed.returncode == 0, installed.stderr
    with running_stack(data, workers=1, speech_check="true") as stack:
        with stack.client() as c:
            r = c.post("/v1/jobs", json=SPEC)
            assert r.status_code == 202, r.text
            job_id = r.json()["id"]
            assert wait_for(c, job_id, timeout=240)["status"] == "succeeded"
        browser.get(stack.url + "/")
        sign_in(browser, stack.keys["alpha"])
        pick = f"#job-list button[data-id='{job_id}']"
        until(browser, 10, lambda d: d.find_element(By.CSS_SELECTOR, pick), "the job list").click()
        try:
            items = until(
                browser, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "#heard-list li"), "heard"
            )
        except Exception:
            print(browser.get_log("browser"))
            raise
        assert [li.get_attribute("data-segment") for li in items] == ["1"]
        rows = browser.find_elements(By.CSS_SELECTOR, "#seg-table tbody tr")
        assert ["flagged" in (r.get_attribute("class") or "") for r in rows] == [True, False]
        assert "heard otherwise" in rows[0].text
        summary = browser.find_element(By.ID, "heard-summary").text
        assert summary == "2 segments checked, 1 flagged, 0 not checkable.", summary
        first = items[0]
        said = first.find_element(By.CSS_SELECTOR, ".said").text
        assert "reinforcement learning" in said  # the script, whole
        heard = first.find_element(By.CSS_SELECTOR, ".heard").text
        assert "dynamic sampling" in heard.lower()  # what was heard, whole
        marks = first.find_elements(By.CSS_SELECTOR, ".said mark.diff")
        assert marks and all(m.text and m.text in said for m in marks)
        assert first.find_elements(By.CSS_SELECTOR, ".heard mark.diff")
        if SHOTS is not None:
            screenshot(browser, SHOTS / "studio-speech-check-desktop.png", 1440, False)
        browser.find_element(By.ID, "heard-retry").click()
        until(browser, 15, lambda d: job_id not in d.current_url, "the re-render's page")
        child = browser.current_url.rsplit("/", 1)[-1]
        with stack.client() as c:
            ended = wait_for(c, child, timeout=240)
            assert ended["status"] == "succeeded" and ended["parent"] == job_id
            assert c.get(f"/v1/jobs/{child}/source").json()["options"]["on_mismatch"] == "retry"
            manifest = c.get(f"/v1/jobs/{child}/artifacts/manifest.json").json()
        assert manifest["segments"][0]["speech_check"]["tries"], manifest["segments"][0]
        assert not manifest["segments"][1]["speech_check"]["tries"]
        # A batch of the same script: its item counts the flagged segments.
        with stack.client() as c:
            items = [{"name": "speech", "script": json.dumps(SPEC, ensure_ascii=False)}]
            made = c.post("/v1/batches", json={"items": items})
            assert made.status_code == 202, made.text
            batch = wait_batch(c, made.json()["id"], timeout=240)
        assert batch["items"][0]["flagged"] == [1], batch
        browser.get(stack.url + "/#/batches/" + batch["id"])
        cell = "#batch-items tbody tr td[data-flagged]"
        shown = until(browser, 20, lambda d: d.find_element(By.CSS_SELECTOR, cell).text, "count")
        assert shown == "1 flagged (1)", shown

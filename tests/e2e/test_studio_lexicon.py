"""The studio's "correct the selected word", saved to a pronunciation dictionary, in a real
browser against a real stack: the word selected in a segment and its reading typed go into a
new dictionary of the tenant's as the page re-renders the job, and the re-render reads it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.stack import Stack, needs_chromium, wait_for
from tests.support.studio import axe_views, running_stack, sign_in, studio_browser, until

pytestmark = needs_chromium
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

SPEC: dict[str, Any] = {
    "title": "单先生",
    "language": "zh",
    "segments": [{"text": "单先生来了。", "seconds": 3}],
    "options": {"engine": "espeak"},
}


@pytest.fixture(scope="module")
def studio_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("studio-lexicon"), workers=1) as s:
        yield s


def test_a_correction_saved_to_a_new_dictionary_is_read_by_the_rerender(
    studio_stack: Stack, tmp_path: Path
) -> None:
    stack = studio_stack
    alpha = stack.client("alpha")
    job = wait_for(alpha, alpha.post("/v1/jobs", json=SPEC).json()["id"])
    assert job["status"] == "succeeded", job["error"]
    with studio_browser(tmp_path / "profile", height=1000) as driver:
        driver.get(f"{stack.url}/")
        sign_in(driver, stack.keys["alpha"])
        until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#job-list li"), "list")
        driver.execute_script("location.hash = arguments[0]", f"#/jobs/{job['id']}")
        read = until(driver, 30, lambda d: d.find_element(By.ID, "fix-read-0").text, "reading")
        assert read.split()[0] == "dan1", read
        # 单 selected in the segment's text, then "Correct the selected word".
        driver.execute_script(
            "const t = document.getElementById('fix-text-0'); t.focus(); t.setSelectionRange(0, 1);"
        )
        driver.find_element(By.CSS_SELECTOR, "#fix-list .reading button").click()
        pron = driver.find_element(By.ID, "fix-pron")
        assert pron.get_attribute("value") == "单 = "
        pron.send_keys("shan4")
        until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#fix-lex option"), "picker")
        driver.find_element(By.ID, "fix-save-lex").click()
        assert axe_views(driver, "fix-lexicon") == []  # the new controls are named
        driver.find_element(By.ID, "fix-lex-name").send_keys("surnames")
        driver.find_element(By.ID, "rerender").click()
        until(
            driver, 30, lambda d: job["id"] not in d.find_element(By.ID, "job-meta").text, "new job"
        )
        child_id = driver.find_element(By.ID, "job-meta").text.split()[1]
        child = wait_for(alpha, child_id)
        assert child["status"] == "succeeded", child["error"]
        again = until(driver, 60, lambda d: d.find_element(By.ID, "fix-read-0").text, "re-read")
        assert again.split()[0] == "shan4", again
        picked = until(
            driver, 10, lambda d: d.find_element(By.ID, "fix-lex").get_attribute("value"), "saved"
        )

    [mine] = alpha.get("/v1/lexicons").json()
    assert mine["name"] == "surnames" and mine["id"] == picked and mine["version"] == 2
    rules = alpha.get(f"/v1/lexicons/{mine['id']}").json()["rules"]
    assert rules == [{"grapheme": "单", "kind": "pinyin", "value": "shan4"}]
    assert stack.client("beta").get("/v1/lexicons").json() == []

"""The studio page in a real browser (the system Chromium, through chromedriver) against a
real stack: check the bundled example, submit a short script of the same form with a video,
watch it, preview it with subtitles, fix one segment and re-render it, and check that
another tenant sees none of it. (The keyless page, a failed job's error and the event
stream are followed on the workbench's keyless stack: test_studio_workbench.py.)"""

from __future__ import annotations

import array
import io
import re
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.data import BUNDLED_EXAMPLE, ROOT, make_video
from tests.support.stack import Stack, needs_chromium, wait_for
from tests.support.studio import (
    SHOTS,
    at_size,
    running_stack,
    screenshot,
    sign_in,
    studio_browser,
    until,
)

pytestmark = needs_chromium
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


@pytest.fixture(scope="module")
def studio_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # One worker: the page is watched the same way whether one or two render the segments.
    tmp = tmp_path_factory.mktemp("studio")
    with running_stack(tmp, workers=1, max_video_bytes=50_000_000) as s:
        yield s


# The bundled example's form (four segments, qualifiers) at a tenth of its length: what the
# page shows of a render does not depend on its minute (the CLI renders the example itself,
# tests/integration/cli/test_render.py).
SHORT_EXAMPLE = """[段 1 · 3 秒 冲突] 长上下文推理最贵的是 KV 缓存。

[段 2 · 2.5 秒 机制] 按注意力头分组量化。

[段 3 · 2 秒 结果] 显存减半。

[段 4 · 2 秒 收尾] 值得一试。

字幕层叠加限定语:结果来自论文自报;仅测试 Llama 系列。
"""
FIXED = "这一步值得先试。"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    with studio_browser(tmp_path / "profile", height=1000) as driver:  # CSP reports: its log
        yield driver


def vtt_texts(vtt: str) -> list[str]:
    """Cue texts of a WebVTT file as a VTTCue's text gives them: the raw cue payload, class
    spans (``<c.narration>``) included."""
    texts = []
    for block in vtt.strip().split("\n\n")[1:]:
        lines = block.splitlines()
        at = next((i for i, line in enumerate(lines) if "-->" in line), None)
        if at is not None:
            texts.append("\n".join(lines[at + 1 :]))
    return texts


def tts_total(client: httpx.Client) -> float:
    text = client.get("/metrics").text
    return sum(
        float(m) for m in re.findall(r"^narrate_tts_calls_total\{[^}]*\} (\S+)$", text, re.M)
    )


def shot(driver: Any, name: str, width: int, mobile: bool) -> None:
    """The view saved for the docs when STUDIO_SCREENSHOTS names a folder; nothing asserts
    on a screenshot, so without one the full-page captures are not taken."""
    if SHOTS is not None:
        screenshot(driver, SHOTS / name, width, mobile)


def test_studio_end_to_end(studio_stack: Stack, browser: Any, tmp_path: Path) -> None:
    stack, driver = studio_stack, browser
    video = make_video(tmp_path / "clip.mp4", 10, size="360x640", fps=15)
    alpha = stack.client("alpha")

    driver.get(stack.url + "/")
    assert driver.title == "narrate studio"
    sign_in(driver, stack.keys["alpha"])
    until(driver, 10, lambda d: d.find_element(By.ID, "jobs-msg").text == "No jobs yet.", "list")

    # A bad script: the error names the segment and the line.
    bad = "[段 1 · 4 秒 开场] 你好。\n\n[段 2 · 五 秒 机制] 再见。\n"
    driver.execute_script("document.getElementById('script').value = arguments[0]", bad)
    driver.find_element(By.ID, "check").click()
    err = until(driver, 10, lambda d: d.find_element(By.ID, "form-error").text, "script error")
    assert "Segment 2" in err and "line 3" in err, err

    # The bundled example, checked before it is submitted.
    script = BUNDLED_EXAMPLE.read_text(encoding="utf-8")
    driver.execute_script("document.getElementById('script').value = arguments[0]", script)
    driver.find_element(By.ID, "video").send_keys(str(video))
    Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
    driver.find_element(By.ID, "exports").click()  # the editor's timelines too
    driver.find_element(By.ID, "check").click()
    rows = until(
        driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#parsed-table tbody tr"), "parsed"
    )
    assert [r.find_elements(By.TAG_NAME, "td")[2].text for r in rows] == ["16", "24", "14.5", "8"]
    assert driver.find_element(By.ID, "form-error").text == ""
    assert "结果来自论文自报" in driver.find_element(By.ID, "parsed").text  # qualifiers shown
    shot(driver, "studio-new-job-desktop.png", 1440, False)
    shot(driver, "studio-new-job-phone.png", 390, True)
    driver.execute_script("document.getElementById('script').value = arguments[0]", SHORT_EXAMPLE)

    started = time.monotonic()
    driver.find_element(By.ID, "submit").click()
    until(driver, 20, lambda d: d.find_element(By.ID, "job").is_displayed(), "job view")
    # Watch: per-segment states appear while it runs; then the preview.
    states = until(
        driver, 20, lambda d: d.find_elements(By.CSS_SELECTOR, "#seg-table tbody td.state"), "rows"
    )
    assert len(states) == 4
    until(
        driver,
        60,
        lambda d: any(
            c.text in ("running", "done")
            for c in d.find_elements(By.CSS_SELECTOR, "#seg-table tbody td.state")
        ),
        "a segment running",
    )
    shot(driver, "studio-watch-phone.png", 390, True)
    until(driver, 240, lambda d: d.find_element(By.ID, "preview").is_displayed(), "preview")
    until(
        driver,
        30,
        lambda d: d.execute_script("return document.getElementById('player').readyState >= 1"),
        "video metadata",
    )
    to_preview = time.monotonic() - started
    print(f"\nsubmit -> preview (short example, espeak, 10 s video): {to_preview:.1f} s")
    status = driver.find_element(By.ID, "job-status").text
    assert status.startswith("succeeded"), status
    job_id = driver.find_element(By.ID, "job-meta").text.split()[1]
    job = alpha.get(f"/v1/jobs/{job_id}").json()
    assert job["status"] == "succeeded" and [s["state"] for s in job["segments"]] == ["done"] * 4

    # The player plays, with the subtitle track on and the cues of subtitles.vtt.
    played = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const v = document.getElementById('player'); v.muted = true;
        v.play().then(() => setTimeout(() => {
          const t = v.textTracks[0];
          done({time: v.currentTime, paused: v.paused, mode: t && t.mode,
                cues: t && t.cues ? Array.from(t.cues).map(c => c.text) : null});
        }, 1200)).catch(e => done({error: String(e)}));"""
    )
    assert "error" not in played, played
    assert played["time"] > 0.3 and not played["paused"], played
    assert played["mode"] == "hidden"  # the page draws the cues (test_studio_workbench.py)
    vtt = alpha.get(f"/v1/jobs/{job_id}/artifacts/subtitles.vtt").text
    assert played["cues"] == vtt_texts(vtt) and len(played["cues"]) > 4
    # The timeline strip: one block per segment, and the overlay layer's cues.
    blocks = driver.find_elements(By.CSS_SELECTOR, "#timeline .block.seg")
    assert len(blocks) == 4
    assert blocks[1].value_of_css_property("left") != blocks[0].value_of_css_property("left")
    refused = [
        e["message"] for e in driver.get_log("browser") if "Content Security" in e["message"]
    ]
    assert refused == []  # the page runs under its CSP: no inline script or style attribute
    assert driver.find_elements(By.CSS_SELECTOR, "#timeline .block.overlay")
    # One segment's audio, as heard in the narration.
    manifest0 = alpha.get(f"/v1/jobs/{job_id}/artifacts/manifest.json").json()
    wav = alpha.get(f"/v1/jobs/{job_id}/segments/4/audio")
    assert wav.status_code == 200 and wav.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(wav.content)) as w:
        seconds = w.getnframes() / w.getframerate()
        pcm = array.array("h", w.readframes(w.getnframes()))
    assert (
        abs(seconds - (manifest0["segments"][3]["end"] - manifest0["segments"][3]["start"])) < 0.01
    )
    assert max(abs(x) for x in pcm) > 1000  # speech, not silence
    downloads = [
        b.get_attribute("data-name")
        for b in driver.find_elements(By.CSS_SELECTOR, "#downloads button")
    ]
    segments = {f"segments/{i:02d}.wav" for i in range(1, 5)}
    assert segments <= set(job["artifacts"])  # served, and packed beside the timelines:
    assert set(downloads) == set(job["artifacts"]) - segments and "video.mp4" in downloads
    assert {"timeline.otio", "timeline.fcpxml", "timeline.xml", "timeline.edl"} <= set(downloads)
    assert "timeline-package.zip" in downloads
    # Paused where the qualifier overlay (top) and the narration (bottom) both show.
    at = manifest0["overlays"][0]["start"] + 0.5
    driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const v = document.getElementById('player'); v.pause();
        v.addEventListener('seeked', () => setTimeout(done, 300), {once: true});
        v.currentTime = arguments[0];""",
        at,
    )
    shot(driver, "studio-preview-desktop.png", 1440, False)
    shot(driver, "studio-preview-phone.png", 390, True)
    at_size(driver, "phone")  # laid out at 390 px before it is measured
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    assert wide <= 390, f"the page is {wide} px wide at phone width: it scrolls sideways"
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # Every visible control has a name a screen reader can read (a label, aria-label, text).
    unnamed = driver.execute_script(
        """return Array.from(document.querySelectorAll('input, select, textarea, button'))
          .filter(e => e.offsetParent !== null && !(e.labels && e.labels.length)
                  && !e.getAttribute('aria-label') && !e.textContent.trim())
          .map(e => e.outerHTML.slice(0, 80));"""
    )
    assert unnamed == []

    # Fix segment 4 and re-render: only that segment is synthesized again.
    before = tts_total(alpha)
    box = driver.find_element(By.ID, "fix-text-3")
    box.clear()
    box.send_keys(FIXED)
    driver.find_element(By.ID, "rerender").click()
    until(
        driver, 20, lambda d: job_id not in d.find_element(By.ID, "job-meta").text.split()[1], "new"
    )
    fix_id = driver.find_element(By.ID, "job-meta").text.split()[1]
    until(driver, 240, lambda d: d.find_element(By.ID, "preview").is_displayed(), "fix preview")
    fixed = wait_for(alpha, fix_id)
    assert fixed["status"] == "succeeded" and fixed["parent"] == job_id
    calls = [s["tts_calls"] for s in fixed["segments"]]
    assert calls[:3] == [0, 0, 0] and calls[3] > 0, calls
    assert tts_total(alpha) - before == calls[3]
    assert "fix of" in driver.find_element(By.ID, "job-meta").text
    manifest = alpha.get(f"/v1/jobs/{fix_id}/artifacts/manifest.json").json()
    assert manifest["segments"][3]["text"] == FIXED
    until(
        driver,
        30,
        lambda d: d.execute_script("return document.getElementById('player').readyState >= 2"),
        "fixed video loaded",
    )
    shot(driver, "studio-fix-desktop.png", 1440, False)

    # Another tenant's key: none of these jobs, on the page or by id.
    driver.find_element(By.ID, "signout").click()
    sign_in(driver, stack.keys["beta"])
    until(driver, 10, lambda d: d.find_element(By.ID, "jobs-msg").text == "No jobs yet.", "empty")
    assert not driver.find_elements(By.CSS_SELECTOR, "#job-list li")
    assert driver.find_element(By.ID, "script").get_attribute("value") == ""  # form cleared
    assert "KV" not in driver.find_element(By.TAG_NAME, "body").text
    beta = stack.client("beta")
    for jid in (job_id, fix_id):
        assert beta.get(f"/v1/jobs/{jid}/source").status_code == 404
        assert beta.get(f"/v1/jobs/{jid}/segments/1/audio").status_code == 404
        assert beta.post(f"/v1/jobs/{jid}/rerender", json={"spec": {}}).status_code == 404
    assert beta.get("/v1/jobs").json()["jobs"] == []
    shot(driver, "studio-other-tenant-phone.png", 390, True)


def test_page_weight_and_offline(studio_stack: Stack) -> None:
    """The page and its assets come from this server alone (nothing to fetch elsewhere), at
    most 150 kB gzipped (issue 26's bound)."""
    import gzip

    page = httpx.get(studio_stack.url + "/").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and all(a.startswith(("/", "#", "data:")) for a in assets), assets
    total, packed = len(page.encode()), len(gzip.compress(page.encode()))
    for a in assets:
        if a.startswith("/"):
            r = httpx.get(studio_stack.url + a)
            assert r.status_code == 200, a
            total += len(r.content)
            packed += len(gzip.compress(r.content))
    print(f"\npage weight: {total} bytes, {packed} gzipped ({len(assets)} assets)")
    assert packed <= 150_000
    assert (ROOT / "service/api/static/index.html").is_file()


def test_parse_endpoint_points_at_the_problem(studio_stack: Stack) -> None:
    """Checking a script creates no job; every error names the segment, line or field."""
    alpha = studio_stack.client("alpha")
    ok = alpha.post(
        "/v1/scripts:parse",
        json={
            "script": BUNDLED_EXAMPLE.read_text(encoding="utf-8"),
            "options": {"engine": "espeak"},
        },
    )
    assert ok.status_code == 200, ok.text
    body = ok.json()
    assert [s["seconds"] for s in body["segments"]] == [16, 24, 14.5, 8]
    assert body["duration"] == 62.5 and len(body["spec"]["qualifiers"]) == 4
    assert all(0 < s["pace"] <= s["max_pace"] for s in body["segments"])
    cases = {
        "[段 1 · 4 秒] 好。\n[段 2 · 4 秒]\n": "segment 2",
        '{"segments": [{"text": "好", "seconds": 4}, {"text": "好", "seconds": -1}]}': (
            "segment 2 seconds"
        ),
        '{"segments": [': "line 1",
        "[段 1 · 1 秒] " + "长" * 40: "segment 1: 40 syllables in 1 s",
        '{"segments": [{"text": "好", "seconds": 4, "voice": "nope"}]}': "nope",
    }
    for script, expected in cases.items():
        r = alpha.post("/v1/scripts:parse", json={"script": script})
        assert r.status_code == 422 and expected in r.json()["detail"][0]["msg"], (script, r.text)
    no_key = httpx.post(studio_stack.url + "/v1/scripts:parse", json={"script": "x"})
    assert no_key.status_code == 401


def test_rerender_validates_and_links(studio_stack: Stack) -> None:
    """A re-render is a new job with a parent; a bad edit is refused before anything runs."""
    alpha = studio_stack.client("alpha")
    spec = {"language": "en", "segments": [{"text": "One two three.", "seconds": 3}]}
    first = alpha.post("/v1/jobs", json={**spec, "options": {"engine": "espeak"}})
    assert first.status_code == 202
    job_id = first.json()["id"]
    assert wait_for(alpha, job_id)["status"] == "succeeded"
    src = alpha.get(f"/v1/jobs/{job_id}/source").json()
    assert src["spec"]["segments"][0]["text"] == "One two three." and src["parent"] is None
    bad = {**src["spec"], "segments": [{"text": "", "seconds": 3}]}
    r = alpha.post(f"/v1/jobs/{job_id}/rerender", json={"spec": bad})
    assert r.status_code == 422 and "segment 1 text" in r.json()["detail"][0]["msg"]
    edited = {**src["spec"], "segments": [{"text": "One two four.", "seconds": 3}]}
    r = alpha.post(f"/v1/jobs/{job_id}/rerender", json={"spec": edited})
    assert r.status_code == 202, r.text
    child = wait_for(alpha, r.json()["id"])
    assert child["status"] == "succeeded" and child["parent"] == job_id
    assert child["segments"][0]["engine"] == "espeak"  # the parent's options were kept
    assert alpha.get(f"/v1/jobs/{job_id}/segments/2/audio").status_code == 404

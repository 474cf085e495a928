"""The studio page as an editor's workbench, in a real browser against a real stack (one of
each for the module): the preview draws the subtitles where the export puts them (once,
never over a burned-in picture), the URL names the view (reload, Back, a shared link), the
compose form survives a reload, the list follows running jobs, an ended job runs nothing,
the timeline spans the video, and a key a loopback server refuses does not break the page.
The keyless stack also serves the page without a key, a failed job's error and warnings, and
a job followed by its event stream (moved here from test_studio.py, whose stack needs keys:
each had started a stack and a browser of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.data import BUNDLED_EXAMPLE, make_video
from tests.support.stack import Stack, needs_chromium, submit, wait_for
from tests.support.studio import (
    SHOTS,
    SIZES,
    at_size,
    axe_views,
    running_stack,
    screenshot,
    studio_browser,
    until,
)

pytestmark = needs_chromium
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from tests.support.helpers import frame_at  # noqa: E402

TWO_LINES = "长上下文推理最贵的不是算力,而是 KV 缓存。"  # a two-line narration cue
SPEC: dict[str, Any] = {
    "title": "workbench",
    "language": "zh",
    "segments": [{"text": TWO_LINES, "seconds": 5}, {"text": "吞吐提升接近两倍。", "seconds": 2.5}],
    "qualifiers": ["结果来自论文自报"],
    "options": {"engine": "espeak"},
}


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Any, Path]]:
    tmp = tmp_path_factory.mktemp("workbench")
    faults = "bug_on=故障"
    with running_stack(tmp / "stack", workers=1, faults=faults, require_keys="false") as s:
        video = make_video(tmp / "clip.mp4", 10, size="360x640", fps=15)
        with studio_browser(tmp / "profile") as driver:
            yield s, driver, video


RENDERED: dict[str, str] = {}  # one render per set of options for the module's tests


def job_with_video(stack: Stack, video: Path, **options: Any) -> str:
    import json

    done = RENDERED.get(f"{stack.url} {sorted(options.items())}")
    if done is not None:
        return done

    spec = {k: v for k, v in SPEC.items() if k != "options"}
    with httpx.Client(base_url=stack.url, timeout=60) as c:
        r = c.post(
            "/v1/jobs",
            files={
                "script": ("s.json", json.dumps(spec).encode(), "application/json"),
                "video": ("clip.mp4", video.read_bytes(), "video/mp4"),
            },
            data={"options": json.dumps({**SPEC["options"], **options})},
        )
        assert r.status_code == 202, r.text
        job_id: str = r.json()["id"]
        assert wait_for(c, job_id, timeout=120)["status"] == "succeeded"
    RENDERED[f"{stack.url} {sorted(options.items())}"] = job_id
    return job_id


def open_preview(driver: Any, stack: Stack, job_id: str) -> None:
    driver.get(f"{stack.url}/#/jobs/{job_id}")  # a shared link opens the job
    until(driver, 30, lambda d: d.find_element(By.ID, "preview").is_displayed(), "preview")
    until(
        driver,
        30,
        lambda d: d.execute_script("return document.getElementById('player').readyState >= 2"),
        "video loaded",
    )


def seek(driver: Any, t: float) -> None:
    driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const v = document.getElementById('player'); v.pause();
        v.addEventListener('seeked', () => requestAnimationFrame(() => done()), {once: true});
        v.currentTime = arguments[0];""",
        t,
    )


BOXES = """const v = document.getElementById('player').getBoundingClientRect();
  const vid = document.getElementById('player');
  const k = Math.min(v.width / vid.videoWidth, v.height / vid.videoHeight);
  const h = vid.videoHeight * k, top = v.top + (v.height - h) / 2;
  return {top, h, track: vid.textTracks.length ? vid.textTracks[0].mode : null,
    cues: Array.from(document.querySelectorAll('#cues .cue')).map(c => {
      const r = c.getBoundingClientRect();
      return {cls: c.className, top: r.top, bottom: r.bottom, lines: c.querySelectorAll('.line').length,
              lang: c.lang, text: c.textContent};
    })};"""


def test_the_preview_draws_the_subtitles_where_the_export_does(bench: Any) -> None:
    """Both lines of a narration cue end at 88 % of the picture (the style's bottom margin,
    as libass puts them), the qualifier starts at 8 %; the browser's own cue rendering is off
    (it hangs the box from 88 %, under the controls). The timeline spans the video's 10 s;
    a click on a segment while the video plays pauses it."""
    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    open_preview(driver, stack, job_id)
    manifest = httpx.get(f"{stack.url}/v1/jobs/{job_id}/artifacts/manifest.json").json()
    both = manifest["overlays"][0]["start"] + 0.3
    seek(driver, min(both, 1.0) if both < 4.8 else 1.0)
    shown = driver.execute_script(BOXES)
    assert shown["track"] == "hidden", shown
    (narration,) = [c for c in shown["cues"] if "narration" in c["cls"]]
    assert narration["lines"] == 2 and narration["lang"] == "zh-CN", narration
    assert abs(narration["bottom"] - (shown["top"] + 0.88 * shown["h"])) < 2, shown
    seek(driver, both)
    shown = driver.execute_script(BOXES)
    (top,) = [c for c in shown["cues"] if "qualifiers" in c["cls"]]
    assert abs(top["top"] - (shown["top"] + 0.08 * shown["h"])) < 2, shown
    assert top["text"] == "结果来自论文自报"

    # The timeline is the video's length: the narration (7.5 s) ends at 75 % of it.
    lane, last = driver.execute_script(
        """const l = document.querySelector('#timeline .lane').getBoundingClientRect();
        const b = document.querySelectorAll('#timeline .block.seg');
        return [l.width, b[b.length - 1].getBoundingClientRect().right - l.left];"""
    )
    assert abs(last / lane - manifest["segments"][-1]["end"] / 10) < 0.02, (last, lane)
    assert driver.find_elements(By.CSS_SELECTOR, "#timeline .ruler .tick")

    playing = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const v = document.getElementById('player'); v.muted = true;
        v.play().then(() => done(!v.paused)).catch(e => done(String(e)));"""
    )
    assert playing is True, playing
    driver.find_elements(By.CSS_SELECTOR, "#timeline .block.seg")[0].click()
    until(
        driver,
        5,
        lambda d: d.execute_script("return document.getElementById('player').paused"),
        "paused",
    )

    # The fix panel shows what the engine read (the manifest's spoken_text).
    read = driver.find_element(By.ID, "fix-read-0").text
    given = " ".join(manifest["segments"][0]["spoken_text"].split())  # the page folds spaces
    assert read == given and "shang4" in read

    # Drag segment 1's end 1.5 s later: the pace shows as it moves; released, a re-render
    # with the new seconds.
    until(driver, 10, lambda d: d.execute_script("return !!studio.state.syllables"), "syllables")
    grip = driver.find_element(By.CSS_SELECTOR, "#timeline .block.seg .grip")
    px = driver.execute_script(
        "return document.querySelector('#timeline .lane .block.seg').parentElement"
        ".getBoundingClientRect().width"
    )
    Select(driver.find_element(By.ID, "fix-overflow")).select_by_value("squeeze")  # and a policy
    drag = ActionChains(driver).click_and_hold(grip).move_by_offset(round(px * 0.15), 0)
    drag.perform()
    tip = driver.find_element(By.CSS_SELECTOR, "#timeline .drag-tip").text
    assert "syllables/s" in tip, tip
    ActionChains(driver).release().perform()
    until(driver, 15, lambda d: job_id not in d.current_url, "re-rendered")
    child = driver.current_url.rsplit("/", 1)[1]
    src = httpx.get(f"{stack.url}/v1/jobs/{child}/source").json()
    assert src["parent"] == job_id
    assert abs(src["spec"]["segments"][0]["seconds"] - 6.5) <= 0.2, src["spec"]["segments"]
    assert src["spec"]["segments"][1]["seconds"] == 2.5
    assert src["spec"]["fit"]["on_overflow"] == "squeeze"


def _frame(stack: Stack, job_id: str, tmp: Path, at: float) -> Any:

    path = tmp / f"{job_id}.mp4"
    path.write_bytes(httpx.get(f"{stack.url}/v1/jobs/{job_id}/artifacts/video.mp4").content)
    return frame_at(path, at, (360, 640), gray=True)


WORDS = """return Array.from(document.querySelectorAll('#cues .cue.narration')).map(c => ({
  text: c.textContent,
  words: Array.from(c.querySelectorAll('.word')).map(w => ({text: w.textContent,
    color: getComputedStyle(w).color, hidden: getComputedStyle(w).visibility === 'hidden',
    background: getComputedStyle(w).backgroundColor, pop: w.classList.contains('pop')}))}));"""


BUFFERED = "return document.getElementById('player').readyState >= 3"


def vtt_onsets(vtt: str) -> list[tuple[float, str]]:
    """The first narration cue's pieces: (onset in seconds, its text up to the next)."""
    import re

    block = next(b for b in vtt.split("\n\n") if "-->" in b and "c.narration" in b)
    start = block.split(" --> ")[0]
    pieces, at = [], start
    for line in block.splitlines()[1:]:
        for i, part in enumerate(re.split(r"<(\d\d:\d\d:\d\d\.\d{3})>", line)):
            if i % 2:
                at = part
            elif re.sub(r"<[^>]*>", "", part):
                pieces.append((at, re.sub(r"<[^>]*>", "", part)))
    secs = [sum(float(x) * 60**k for k, x in enumerate(reversed(t.split(":")))) for t, _ in pieces]
    return [(t, text) for t, (_, text) in zip(secs, pieces, strict=True)]


@pytest.mark.parametrize("captions", ["highlight", "reveal", "box", "pop"])
def test_a_word_by_word_preview_shows_the_word_being_spoken(bench: Any, captions: str) -> None:
    """The VTT marks each word's onset; between two onsets the preview draws what the ASS
    draws then: highlight, that word alone in the highlight colour; reveal, the words spoken
    so far, the rest hidden in their place; box, that word alone on the box colour; pop, it
    in the highlight colour, popping in."""
    stack, driver, video = bench
    job_id = job_with_video(stack, video, style="vertical-safe-highlight", captions=captions)
    vtt = httpx.get(f"{stack.url}/v1/jobs/{job_id}/artifacts/subtitles.vtt").text
    pieces = vtt_onsets(vtt)
    assert len(pieces) >= 4, vtt
    open_preview(driver, stack, job_id)
    # The calls column says what the calls were: the cache's, or one of them the refit.
    job = httpx.get(f"{stack.url}/v1/jobs/{job_id}").json()
    manifest = httpx.get(f"{stack.url}/v1/jobs/{job_id}/artifacts/manifest.json").json()
    said = [
        "0 (cached)"
        if s["tts_calls"] == 0
        else f"{s['tts_calls']} (one at the fitting rate)"
        if s["tts_calls"] > 1 and m["native_rate"] not in (None, 1)
        else str(s["tts_calls"])
        for s, m in zip(job["segments"], manifest["segments"], strict=True)
    ]
    cells = "return Array.from(document.querySelectorAll('#seg-table tbody tr')).map(r => r.cells[5].textContent)"
    until(driver, 10, lambda d: d.execute_script(cells) == said, f"calls {said}")
    for k in (1, len(pieces) // 2, len(pieces) - 2):
        seek(driver, (pieces[k][0] + pieces[k + 1][0]) / 2)
        (cue,) = driver.execute_script(WORDS)
        if captions in ("highlight", "pop"):
            (word,) = cue["words"]
            assert word["text"] == pieces[k][1], (k, cue)
            assert word["color"] == "rgb(255, 214, 10)"  # the style's highlight_color, #FFD60A
            assert word["pop"] == (captions == "pop")
        elif captions == "box":
            (word,) = cue["words"]
            assert word["text"] == pieces[k][1], (k, cue)
            assert word["background"] == "rgb(255, 45, 85)"  # box_color, #FF2D55
        else:
            hidden = "".join(w["text"] for w in cue["words"] if w["hidden"])
            assert hidden == "".join(text for _, text in pieces[k + 1 :]), (k, cue)
        assert cue["text"].replace(" ", "") == "".join(t for _, t in pieces).replace(" ", "")
        if SHOTS is not None and k == len(pieces) // 2:
            until(driver, 10, lambda d: d.execute_script(BUFFERED), "no spinner")
            for size, (width, _, mobile) in SIZES.items():
                screenshot(driver, SHOTS / f"studio-preview-{captions}-{size}.png", width, mobile)


def test_a_burned_in_preview_shows_its_subtitles_once(bench: Any, tmp_path: Path) -> None:
    """No drawn cue over a burned-in picture; and the page's cue box over the plain picture
    sits where libass burned the same cue (centre within 2 % of the picture's height, bottom
    within 1.5 %; the browser's own VTT rendering hung it below the 88 % line)."""
    stack, driver, video = bench
    job_id = job_with_video(stack, video, burn_in=True)
    open_preview(driver, stack, job_id)
    seek(driver, 1.0)
    shown = driver.execute_script(BOXES)
    assert shown["cues"] == [] and shown["track"] in (None, "disabled", "hidden"), shown
    assert driver.find_element(By.ID, "burned-note").is_displayed()

    plain = job_with_video(stack, video)
    text = abs(_frame(stack, job_id, tmp_path, 1.0) - _frame(stack, plain, tmp_path, 1.0)) > 60
    rows = [y for y in range(320, 640) if text[y].any()]  # the narration, in the lower half
    burned = (rows[0] / 640, (rows[-1] + 1) / 640)
    open_preview(driver, stack, plain)
    seek(driver, 1.0)
    shown = driver.execute_script(BOXES)
    (cue,) = [c for c in shown["cues"] if "narration" in c["cls"]]
    drawn = ((cue["top"] - shown["top"]) / shown["h"], (cue["bottom"] - shown["top"]) / shown["h"])
    print(f"\nburned-in rows {burned}, drawn box {drawn}")
    # The box holds the lines' leading, the burned rows only ink: centres and bottoms agree.
    centre = abs(sum(drawn) / 2 - sum(burned) / 2)
    assert centre < 0.02 and abs(drawn[1] - burned[1]) < 0.015, (drawn, burned)


def test_the_url_names_the_view_and_the_draft_survives_a_reload(bench: Any) -> None:
    """Back returns to the job before, a reload keeps the job open, the form's script,
    options and video come back after a reload; a job running in the list is followed to its
    end, and a failed job shows no segment as running or queued."""
    stack, driver, video = bench
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        ok = c.post("/v1/jobs", json={**SPEC, "qualifiers": []}).json()["id"]
        assert wait_for(c, ok)["status"] == "succeeded"
    # A job still running when the page loads is followed in the list to its end.
    bad = {
        **SPEC,
        "segments": [
            *SPEC["segments"],
            {"text": "故障在这里 SEGHOLDLIST。", "seconds": 2},
            SPEC["segments"][1],
        ],
    }
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        failed = c.post("/v1/jobs", json=bad).json()["id"]
    stack.gate("LIST").reached()  # held running at its third segment
    driver.get(stack.url + "/")  # a new page (not a hash change): it lists the job running
    state = f"#job-list [data-id='{failed}'] .state"
    first = until(driver, 30, lambda d: d.find_element(By.CSS_SELECTOR, state).text, "listed")
    assert first == "running", first
    stack.gate("LIST").open()
    until(
        driver,
        60,
        lambda d: (
            d.find_element(By.CSS_SELECTOR, f"#job-list [data-id='{failed}'] .state").text
            == "failed"
        ),
        "the list follows the job to its end",
    )
    driver.find_element(By.CSS_SELECTOR, f"#job-list [data-id='{failed}']").click()
    until(driver, 10, lambda d: d.current_url.endswith(f"#/jobs/{failed}"), "url")
    until(driver, 10, lambda d: "failed" in d.find_element(By.ID, "job-status").text, "failed")
    states = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#seg-table tbody td.state")]
    assert states[2] == "failed" and states[3] == "not run", states

    # The list's search (a title or an id) and state filter.
    def visible() -> list[str]:
        return [
            b.get_attribute("data-id")
            for b in driver.find_elements(By.CSS_SELECTOR, "#job-list li:not([hidden]) button")
        ]

    driver.find_element(By.ID, "job-search").send_keys(failed[:8])
    assert visible() == [failed]
    driver.find_element(By.ID, "job-search").clear()
    driver.find_element(By.ID, "job-search").send_keys(" ")  # an input event: all again
    assert ok in visible() and failed in visible()
    Select(driver.find_element(By.ID, "job-filter")).select_by_value("failed")
    assert visible() == [failed]
    Select(driver.find_element(By.ID, "job-filter")).select_by_value("")

    driver.find_element(By.CSS_SELECTOR, f"#job-list [data-id='{ok}']").click()
    until(driver, 10, lambda d: d.current_url.endswith(f"#/jobs/{ok}"), "second job")
    driver.back()
    until(driver, 10, lambda d: failed in d.find_element(By.ID, "job-meta").text, "back")
    driver.refresh()
    until(driver, 10, lambda d: failed in d.find_element(By.ID, "job-meta").text, "reloaded")
    assert driver.find_element(By.ID, "job").is_displayed()

    # The draft: script, an option and the video come back after a reload.
    driver.find_element(By.ID, "new-job").click()
    until(driver, 10, lambda d: d.current_url.endswith("#/new"), "compose")
    driver.find_element(By.ID, "script").send_keys("[段 1 · 3 秒] 草稿。")
    driver.find_element(By.ID, "burn").click()
    driver.find_element(By.ID, "video").send_keys(str(video))
    until(driver, 5, lambda d: "clip.mp4" in d.find_element(By.ID, "video-name").text, "video")
    driver.refresh()
    until(driver, 10, lambda d: d.find_element(By.ID, "compose").is_displayed(), "compose again")
    assert driver.find_element(By.ID, "script").get_attribute("value") == "[段 1 · 3 秒] 草稿。"
    assert driver.find_element(By.ID, "burn").is_selected()
    until(driver, 5, lambda d: "clip.mp4" in d.find_element(By.ID, "video-name").text, "video back")

    # A video shorter than the narration is refused before the upload, in the form's words.
    listed = len(driver.find_elements(By.CSS_SELECTOR, "#job-list li"))
    long = "[段 1 · 8 秒] 第一段。\n\n[段 2 · 4 秒] 第二段。\n"
    driver.execute_script("document.getElementById('script').value = arguments[0]", long)
    driver.find_element(By.ID, "submit").click()
    said = until(driver, 10, lambda d: d.find_element(By.ID, "form-error").text, "too short")
    assert "runs 12 s but the video lasts 10 s" in said, said
    assert driver.find_element(By.ID, "upload").get_attribute("hidden") is not None  # no upload
    assert len(driver.find_elements(By.CSS_SELECTOR, "#job-list li")) == listed


def test_a_key_a_loopback_server_refuses_does_not_break_the_page(bench: Any) -> None:
    stack, driver, _ = bench
    driver.get(stack.url + "/#/new")
    driver.find_element(By.ID, "key").send_keys("not-a-key")
    driver.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
    until(driver, 10, lambda d: "refused" in d.find_element(By.ID, "who").text, "key dropped")
    assert driver.execute_script("return localStorage.getItem('narrate.key')") is None
    until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#job-list li"), "jobs listed")
    assert driver.find_element(By.ID, "jobs-msg").text == ""


def test_no_key_needed_on_loopback(bench: Any) -> None:
    """With keys not required (a loopback server), the page works without signing in: it
    lists the jobs, the voices, says no key is used, and checks a script by keyboard."""
    stack, driver, _ = bench
    driver.get(stack.url + "/")  # a new page (not a hash change): it starts afresh
    until(
        driver,
        10,
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "#job-list li")
            or d.find_element(By.ID, "jobs-msg").text == "No jobs yet."
        ),
        "list",
    )
    voices = until(
        driver,
        10,
        lambda d: d.find_elements(By.CSS_SELECTOR, "#voice option[value]:not([value=''])"),
        "voices",
    )
    assert len(voices) >= 2
    assert "no key" in driver.find_element(By.ID, "who").text
    driver.execute_script(
        "document.getElementById('script').value = arguments[0]",
        BUNDLED_EXAMPLE.read_text(encoding="utf-8"),
    )
    driver.find_element(By.ID, "check").send_keys("\n")  # keyboard, not a click
    rows = until(
        driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#parsed-table tbody tr"), "parsed"
    )
    assert len(rows) == 4


def test_a_failed_job_shows_its_error_and_warnings_by_their_codes(bench: Any) -> None:
    """The page reads the job's error {code, message, segment} and warnings: it says the
    message, marks the segment the error names as failed, and keeps each warning's code.
    (Segment 1 raises in the worker, the stack's bug_on fault; that a missing espeak fails
    a job as engine.failed on segment 1 is tests/unit/api/test_errors.py's.)"""
    stack, driver, _ = bench
    spec = {
        "title": "a bug",
        "segments": [
            {"text": "代码故障测试通过以后,再做优化。", "seconds": 3},
            {"text": "评分员对轨迹排序,低排名降权。" * 2, "seconds": 1.5},
        ],
        "fit": {"on_overflow": "squeeze"},
        "options": {"engine": "espeak"},
    }
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        job_id = c.post("/v1/jobs", json=spec).json()["id"]
        assert wait_for(c, job_id, timeout=120)["status"] == "failed"
    driver.get(f"{stack.url}/#/jobs/{job_id}")
    error = until(
        driver, 10, lambda d: d.find_element(By.ID, "job-error").text or None, "the error"
    )
    assert error.startswith("The job failed: segment 1 failed: internal error"), error
    box = driver.find_element(By.ID, "job-error")
    assert box.get_attribute("data-code") == "internal"
    first = driver.find_element(By.CSS_SELECTOR, "#seg-table tbody tr[data-index='1']")
    assert first.find_elements(By.TAG_NAME, "td")[1].text == "failed"
    (warned,) = driver.find_elements(By.CSS_SELECTOR, "#job-warnings li")
    assert warned.get_attribute("data-code") == "pace.squeezed"
    assert warned.get_attribute("data-segment") == "2"
    assert warned.text.startswith("segment 2: squeezed to ")


def test_the_page_follows_a_running_job_by_its_event_stream(bench: Any) -> None:
    """Without a key the page watches a job through GET /v1/jobs/{id}/events (EventSource),
    not by polling, to the job's end; the stream is closed then."""
    stack, driver, _ = bench
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        held = "[段 1 · 2 秒] 第一段 SEGHOLDSSE。\n\n[段 2 · 2 秒] 第二段。"
        job_id = submit(c, held).json()["id"]
    stack.gate("SSE").reached()
    driver.get(stack.url + "/")  # a new page: its list has the job
    until(
        driver,
        10,
        lambda d: d.find_elements(By.CSS_SELECTOR, f"#job-list button[data-id='{job_id}']"),
        "job listed",
    )[0].click()
    until(
        driver,
        10,
        lambda d: d.execute_script(
            "return !!studio.state.events && studio.state.events.readyState === 1"
        ),
        "event stream open",
    )
    stack.gate("SSE").open()  # the job goes on only once the page follows it
    until(
        driver,
        60,
        lambda d: "succeeded" in d.find_element(By.ID, "job-status").text,
        "job succeeded",
    )
    assert driver.execute_script("return studio.state.events") is None


def test_chinese_first_words_every_problem_at_once_and_the_example(bench: Any) -> None:
    """Switched to 中文 (and remembered over a reload), the page speaks Chinese; a check
    lists every problem at once in the form's words (no internal field names), each
    anchored to its line; the example script is one click away and checks clean."""
    stack, driver, _ = bench
    driver.get(stack.url + "/")
    Select(driver.find_element(By.ID, "lang")).select_by_value("zh-CN")
    driver.refresh()
    until(driver, 10, lambda d: d.find_element(By.ID, "check").text == "检查脚本", "zh words")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN"
    try:
        two = (
            '{"segments": [{"text": "", "seconds": 4}, {"text": "好", "seconds": 2}],'
            ' "fit": {"on_overflow": "zz"}}'
        )
        driver.execute_script("document.getElementById('script').value = arguments[0]", two)
        driver.find_element(By.ID, "check").click()
        items = until(
            driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#form-error li"), "problems"
        )
        texts = [i.text for i in items]
        assert len(items) == 2 and texts[0].startswith("第 1 段 · 文字"), texts
        assert "“段落超时时”" in texts[1] and not any("on_overflow" in x for x in texts), texts
        assert {i.get_attribute("data-code") for i in items} == {"script.invalid"}

        bad = "[段 1 · 4 秒] 好。\n\n[段 2 · 五 秒] 坏。\n"
        driver.execute_script("document.getElementById('script').value = arguments[0]", bad)
        driver.find_element(By.ID, "check").click()
        (item,) = until(
            driver,
            10,
            lambda d: [
                i
                for i in d.find_elements(By.CSS_SELECTOR, "#form-error li")
                if i.get_attribute("data-line")
            ],
            "an anchored problem",
        )
        assert item.get_attribute("data-line") == "3"
        item.find_element(By.TAG_NAME, "a").click()
        at = driver.execute_script("return document.getElementById('script').selectionStart")
        assert at == bad.index("[段 2")

        driver.find_element(By.ID, "example").click()
        rows = until(
            driver,
            10,
            lambda d: d.find_elements(By.CSS_SELECTOR, "#parsed-table tbody tr"),
            "the example checked",
        )
        assert len(rows) == 4 and driver.find_element(By.ID, "form-error").text == ""
        assert rows[0].find_elements(By.TAG_NAME, "td")[4].get_attribute("lang") == "zh-CN"
    finally:
        Select(driver.find_element(By.ID, "lang")).select_by_value("en")


def test_the_voice_picker_speaks_the_scripts_language_and_auditions(bench: Any) -> None:
    """A Chinese script lists Chinese voices only, zh-CN's first, each with its gender and
    engine; the audition button plays the chosen voice's sample before any render."""
    stack, driver, _ = bench
    driver.get(stack.url + "/")
    until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#voice optgroup"), "voices")
    driver.find_element(By.ID, "script").send_keys("[段 1 · 3 秒] 你好。")
    labels = "return Array.from(document.querySelectorAll('#voice optgroup')).map(g => g.label)"
    groups = until(  # the picker follows the typed script once it has read it
        driver,
        5,
        lambda d: (g := d.execute_script(labels)) and all(x.startswith("zh") for x in g) and g,
        "the script's language's voices",
    )
    assert groups[0] == "zh-CN", groups
    languages = driver.execute_script(
        """const ids = Array.from(document.querySelectorAll('#voice option')).map(o => o.value).filter(Boolean);
        return ids.map(id => studio.state.voices.find(v => v.id === id).language);"""
    )
    assert languages and set(languages) == {"zh"}
    espeak = "const o = document.querySelector(\"#voice option[value='cmn-latn-pinyin']\"); return o && o.textContent"
    assert "espeak" in until(driver, 5, lambda d: d.execute_script(espeak), "espeak's option")
    driver.execute_script("document.getElementById('voice').value = 'cmn-latn-pinyin'")
    driver.find_element(By.ID, "audition").click()
    until(
        driver,
        20,
        lambda d: d.execute_script(
            "return !!studio.state.audition && studio.state.audition.currentTime > 0"
        ),
        "the sample plays",
    )


SAMPLES = """return performance.getEntriesByType('resource').map(e => e.name)
    .filter(n => n.includes('/sample?'))"""
PLAYED = "return !!studio.state.audition && (studio.state.audition.currentTime > 0 || studio.state.audition.ended)"


def test_each_segment_of_the_fix_panel_is_heard_as_typed(bench: Any) -> None:
    """A segment's Listen button plays GET /v1/voices/{voice}/sample with the segment's text,
    rate and pitch as typed (not yet re-rendered) in its chosen voice; a segment left on
    "job's voice" is heard in the voice the job spoke it in. Each sample plays; axe finds
    nothing in the panel so at both sizes."""
    from urllib.parse import parse_qs, unquote, urlsplit

    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        used = c.get(f"/v1/jobs/{job_id}").json()["segments"][0]["voice"]
    driver.get(f"{stack.url}/#/jobs/{job_id}")
    until(driver, 30, lambda d: d.find_element(By.ID, "fix-listen-1").is_displayed(), "fix panel")
    driver.execute_script("performance.clearResourceTimings()")

    def heard(voice: str, cls: str) -> dict[str, list[str]]:
        until(driver, 20, lambda d: d.execute_script(PLAYED), "the sample plays")
        (url,) = [u for u in driver.execute_script(SAMPLES) if f"/voices/{voice}/" in unquote(u)]
        driver.execute_script("studio.state.audition.pause(); performance.clearResourceTimings()")
        parts = urlsplit(url)
        assert unquote(parts.path) == f"/v1/voices/{voice}/sample", url
        assert driver.find_element(By.ID, cls).text.startswith("playing "), cls
        return parse_qs(parts.query)

    text = driver.find_element(By.ID, "fix-text-1")
    text.clear()
    text.send_keys("吞吐提升接近三倍。")
    for box, value in (("fix-rate-1", "20"), ("fix-pitch-1", "-5")):
        driver.find_element(By.ID, box).clear()
        driver.find_element(By.ID, box).send_keys(value)
    other = driver.execute_script(
        "return Array.from(document.querySelectorAll('#fix-voice-1 option')).find(o => o.value"
        " && o.value !== arguments[0] && o.text.includes('espeak')).value",
        used,
    )  # an offline voice, not the job's
    Select(driver.find_element(By.ID, "fix-voice-1")).select_by_value(other)
    driver.find_element(By.ID, "fix-listen-1").click()
    query = heard(other, "fix-listen-msg-1")
    assert query == {"text": ["吞吐提升接近三倍。"], "rate": ["+20%"], "pitch": ["-5Hz"]}, query
    driver.find_element(By.ID, "fix-listen-0").click()  # the job's voice, no rate or pitch
    assert heard(used, "fix-listen-msg-0") == {"text": [TWO_LINES]}
    assert axe_views(driver, "fix-listen") == []


def test_the_traditional_track_is_chosen_on_the_compose_form(bench: Any) -> None:
    """The "Traditional Chinese track" select shows for a Chinese script only; Taiwan,
    kept in the draft across a reload, gives a job with options.traditional "tw" whose
    subtitles.zh-Hant.srt is in Traditional characters (评分员 -> 評分員), listed in the job
    view's downloads beside the Simplified track."""
    stack, driver, _ = bench
    driver.get(stack.url + "/#/new")
    driver.execute_script("localStorage.removeItem('narrate.draft')")
    driver.refresh()
    typed = """const s = document.getElementById('script'); s.value = arguments[0];
        s.dispatchEvent(new Event('input', {bubbles: true}));"""
    shown = "return !document.getElementById('traditional-box').hidden"
    driver.execute_script(typed, "[Segment 1 · 3 s] Hello there.")
    until(driver, 5, lambda d: not d.execute_script(shown), "hidden for an English script")
    driver.execute_script(typed, "[段 1 · 4 秒] 评分员对轨迹排序。")
    until(driver, 5, lambda d: d.execute_script(shown), "shown for a Chinese script")
    Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
    Select(driver.find_element(By.ID, "traditional")).select_by_value("tw")
    driver.refresh()  # the draft keeps it
    until(
        driver,
        5,
        lambda d: d.find_element(By.ID, "traditional").get_attribute("value") == "tw",
        "kept",
    )
    assert driver.execute_script(shown)
    driver.find_element(By.ID, "submit").click()
    until(driver, 20, lambda d: "#/jobs/" in d.current_url, "submitted")
    job_id = driver.current_url.rsplit("/", 1)[1]
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        job = wait_for(c, job_id, timeout=120)
        assert job["status"] == "succeeded", job["error"]
        assert c.get(f"/v1/jobs/{job_id}/source").json()["options"]["traditional"] == "tw"
        assert "subtitles.zh-Hant.srt" in job["artifacts"], job["artifacts"]
        hant = c.get(f"/v1/jobs/{job_id}/artifacts/subtitles.zh-Hant.srt").text
        hans = c.get(f"/v1/jobs/{job_id}/artifacts/subtitles.srt").text
    assert "評分員" in hant and "评分员" not in hant, hant
    assert "评分员" in hans, hans
    until(driver, 30, lambda d: d.find_element(By.ID, "preview").is_displayed(), "job view")
    listed = driver.execute_script(
        "return Array.from(document.querySelectorAll('#downloads button')).map(b => b.dataset.name)"
    )
    assert {"subtitles.srt", "subtitles.zh-Hant.srt", "subtitles.zh-Hant.vtt"} <= set(listed), (
        listed
    )


def test_a_music_bed_and_a_preset_go_with_the_job(bench: Any, tmp_path: Path) -> None:
    """The compose form's music file, its level and the preset reach the job: the job has
    its music mix, and the preset's options are applied."""
    import subprocess

    stack, driver, _ = bench
    music = tmp_path / "bed.wav"
    argv = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=220:d=6:sample_rate=48000",
            str(music)]  # fmt: skip
    subprocess.run(argv, check=True)
    driver.get(stack.url + "/#/new")
    until(
        driver,
        10,
        lambda d: d.find_elements(By.CSS_SELECTOR, "#preset option[value=youtube]"),
        "presets",
    )
    driver.execute_script("document.getElementById('script').value = '[段 1 · 3 秒] 音乐测试。'")
    Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
    Select(driver.find_element(By.ID, "preset")).select_by_value("youtube")
    driver.find_element(By.ID, "music").send_keys(str(music))
    level = driver.find_element(By.ID, "music-level")
    level.clear()
    level.send_keys("-12")
    driver.find_element(By.ID, "submit").click()
    until(driver, 20, lambda d: "#/jobs/" in d.current_url, "submitted")
    job_id = driver.current_url.rsplit("/", 1)[1]
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        job = wait_for(c, job_id, timeout=120)
        assert job["status"] == "succeeded", job["error"]
        assert "mix.wav" in job["artifacts"]
        options = c.get(f"/v1/jobs/{job_id}/source").json()["options"]
    assert options["preset"] == "youtube" and options["music_level"] == -12, options


def test_every_view_is_accessible_at_both_sizes(bench: Any, tmp_path: Path) -> None:
    """axe-core finds nothing on the compose view (with a checked script and with its
    errors), the job view (watch, preview, fix) at 1440x900 and 390x844, in both languages;
    the skip link is the first stop of the keyboard and lands in the content. With
    STUDIO_SCREENSHOTS set, each view is saved there at each size."""
    from tests.support.axe import axe_source, violations

    source = axe_source()
    if source is None:
        pytest.skip("axe-core could not be packed (no npm registry)")
    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    driver.get(stack.url + "/")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    first = driver.switch_to.active_element
    assert first.get_attribute("class") == "skip"
    first.send_keys(Keys.ENTER)
    assert driver.switch_to.active_element.get_attribute("id") == "main"

    found: dict[str, list[str]] = {}
    shots = SHOTS

    def look(view: str) -> None:
        for size in SIZES:
            at_size(driver, size)
            found[f"{view} {size}"] = violations(driver, source)
            if shots is not None:
                screenshot(
                    driver, shots / f"studio-{view}-{size}.png", SIZES[size][0], SIZES[size][2]
                )
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    driver.execute_script(
        "document.getElementById('script').value = '[段 1 · 4 秒] 好。\\n\\n[段 2 · 五 秒] 坏。'"
    )
    driver.find_element(By.ID, "check").click()
    until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#form-error li"), "errors")
    look("compose-errors")
    driver.find_element(By.ID, "example").click()
    until(
        driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#parsed-table tbody tr"), "parsed"
    )
    look("compose")
    open_preview(driver, stack, job_id)
    seek(driver, 1.0)
    look("job")
    # By keyboard alone: Tab reaches the timeline's first segment, Enter plays it.
    for _ in range(120):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        if "seg" in (driver.switch_to.active_element.get_attribute("class") or ""):
            break
    else:
        raise AssertionError("Tab never reaches the timeline's segments")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    until(
        driver,
        10,
        lambda d: d.execute_script(
            "return performance.getEntriesByType('resource')"
            ".some(e => e.name.includes('/segments/1/audio'))"
        ),
        "the segment's audio, by keyboard",
    )
    Select(driver.find_element(By.ID, "lang")).select_by_value("zh-CN")
    try:
        until(
            driver,
            10,
            lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN",
            "zh",
        )
        look("job-zh")
        driver.get(stack.url + "/#/new")
        driver.find_element(By.ID, "example").click()
        until(
            driver,
            10,
            lambda d: d.find_elements(By.CSS_SELECTOR, "#parsed-table tbody tr"),
            "parsed",
        )
        look("compose-zh")
    finally:
        Select(driver.find_element(By.ID, "lang")).select_by_value("en")
    assert {k: v for k, v in found.items() if v} == {}


# --- round three: styles, download-all, batches, the fix panel's structure, SSE with a key ---


STILL = "const i = document.getElementById(arguments[0]); return i && !i.hidden && i.complete && i.naturalWidth > 0 ? i.dataset.style : null"


def test_the_style_picker_shows_its_still_and_the_fix_panel_restructures(bench: Any) -> None:
    """The compose form's style picker lists GET /v1/styles and shows the chosen style's
    libass still on a neutral frame; the fix panel's still is drawn on the job's own video.
    Split a segment, merge two back, change the style: the diff against the parent lists
    each change before the re-render, and the child job has the segments and the style."""
    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    driver.get(stack.url + "/#/new")

    def pick(d: Any) -> str | None:
        """The second style chosen, read and picked in one go: the page fills the select
        again on a language change, here or in another tab of the studio (loadStyles), so
        its options can go stale between a read and a click; it keeps the choice."""
        options = d.find_elements(By.CSS_SELECTOR, "#style option")
        if len(options) < 2:
            return None
        value: str = options[1].get_attribute("value")
        Select(d.find_element(By.ID, "style")).select_by_value(value)
        return value

    name = until(driver, 10, pick, "styles")
    until(driver, 30, lambda d: d.execute_script(STILL, "style-still") == name, "compose still")
    shown = driver.execute_script("return document.getElementById('style-still').src")
    assert "job=" not in shown, shown  # a neutral frame: no job yet

    open_preview(driver, stack, job_id)
    until(
        driver, 30, lambda d: d.execute_script(STILL, "fix-style-still") == "default", "job still"
    )
    stills = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.includes('/preview.png'))"
    )
    assert any(f"job={job_id}" in n for n in stills), stills
    assert 'id="diff-table"' not in driver.page_source
    assert (
        driver.find_element(By.ID, "fix-diff")
        .text.strip()
        .endswith(driver.execute_script("return studio.t('diffNone')"))
    )
    driver.find_element(By.CSS_SELECTOR, "#fix-list .fixseg[data-index='0'] button.split").click()
    until(
        driver,
        5,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fix-list .fixseg")) == 3,
        "split",
    )
    texts = [
        e.get_attribute("value")
        for e in driver.find_elements(By.CSS_SELECTOR, "#fix-list textarea")
    ]
    assert "".join(texts[:2]).replace(" ", "") == TWO_LINES.replace(" ", ""), texts
    secs = [
        float(e.get_attribute("value"))
        for e in driver.find_elements(By.CSS_SELECTOR, "#fix-list input[id^=fix-secs]")
    ]
    assert secs == [2.5, 2.5, 2.5], secs
    kinds = [
        r.get_attribute("data-kind")
        for r in driver.find_elements(By.CSS_SELECTOR, "#diff-table tbody tr")
    ]
    assert sorted(kinds) == ["added", "changed"], kinds
    # Merge the second half with the last segment: still three changes against the parent.
    driver.find_element(By.CSS_SELECTOR, "#fix-list .fixseg[data-index='1'] button.merge").click()
    until(
        driver,
        5,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fix-list .fixseg")) == 2,
        "merged",
    )
    Select(driver.find_element(By.ID, "fix-style")).select_by_value(name)
    until(driver, 30, lambda d: d.execute_script(STILL, "fix-style-still") == name, "fix still")
    diff = driver.find_element(By.ID, "fix-diff").text
    assert name in diff and "5" in diff, diff
    assert axe_views(driver, "fix-diff") == []
    driver.find_element(By.ID, "rerender").click()
    until(driver, 20, lambda d: job_id not in d.current_url and "#/jobs/" in d.current_url, "child")
    child = driver.current_url.rsplit("/", 1)[1]
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        source = c.get(f"/v1/jobs/{child}/source").json()
    assert [s["seconds"] for s in source["spec"]["segments"]] == [2.5, 5.0], source["spec"]
    assert source["options"]["style"]["preset"] == name and source["parent"] == job_id, source


def test_the_fix_panel_changes_rate_pitch_qualifiers_and_shots(bench: Any) -> None:
    """Segment 1's rate and pitch, the qualifier, and a shot's end and on-screen text changed
    in the fix panel: the diff lists each before the re-render; the child's manifest has the
    segment's rate and pitch (segment 2 as it was, from the TTS cache), its subtitles the new
    qualifier and the shot's new text over its new span, not the old text. A language switch
    between the edits relabels the panel and keeps the qualifiers and shots as typed. axe
    finds nothing in the panel so edited at both sizes."""
    stack, driver, _ = bench
    shot = {"index": 1, "name": "开场", "start": 0, "end": 3, "screen_text": "旧的屏幕字"}
    spec = {**SPEC, "shots": [shot], "screen_text": True}
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        parent = c.post("/v1/jobs", json=spec).json()["id"]
        assert wait_for(c, parent)["status"] == "succeeded"
    driver.get(f"{stack.url}/#/jobs/{parent}")
    until(driver, 30, lambda d: d.find_element(By.ID, "fix-rate-0").is_displayed(), "fix panel")

    def type_into(box: Any, text: str) -> None:
        box.clear()
        box.send_keys(text)

    type_into(driver.find_element(By.ID, "fix-qualifiers"), "结果来自论文自报，未经复现")
    row = driver.find_element(By.CSS_SELECTOR, "#fix-shots .fixshot")
    type_into(row.find_element(By.CSS_SELECTOR, "input.end"), "4")
    type_into(row.find_element(By.CSS_SELECTOR, "input.text"), "新的屏幕字")
    # A language switch (no segment edited yet) relabels the panel and keeps what was typed.
    kept = """const row = document.querySelector('#fix-shots .fixshot');
        return [document.getElementById('fix-qualifiers').value, row.querySelector('input.end').value,
                row.querySelector('input.text').value, row.textContent.includes(arguments[0])];"""
    for lang, label in (("zh-CN", "屏幕文字"), ("en", "on-screen text")):
        Select(driver.find_element(By.ID, "lang")).select_by_value(lang)
        until(driver, 5, lambda d, w=label: d.execute_script(kept, w)[3], f"the panel in {lang}")
        assert driver.execute_script(kept, label) == [
            "结果来自论文自报，未经复现",
            "4",
            "新的屏幕字",
            True,
        ]
    type_into(driver.find_element(By.ID, "fix-rate-0"), "20")
    type_into(driver.find_element(By.ID, "fix-pitch-0"), "-5")
    diff = driver.find_element(By.ID, "fix-diff").text
    for change in ("+20%", "-5Hz", "未经复现", "3 s → 0–4 s", "“旧的屏幕字” → “新的屏幕字”"):
        assert change in diff, (change, diff)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#diff-table tbody tr")) == 1  # segment 1
    assert axe_views(driver, "fix-tune") == []
    driver.find_element(By.ID, "rerender").click()
    until(driver, 20, lambda d: parent not in d.current_url and "#/jobs/" in d.current_url, "child")
    child = driver.current_url.rsplit("/", 1)[1]
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        job = wait_for(c, child)
        assert job["status"] == "succeeded", job["error"]
        manifest = c.get(f"/v1/jobs/{child}/artifacts/manifest.json").json()
        vtt = c.get(f"/v1/jobs/{child}/artifacts/subtitles.vtt").text
    one, two = manifest["segments"]
    assert (one["requested_rate"], one["pitch"]) == ("+20%", "-5Hz"), one
    assert (two["requested_rate"], two["pitch"]) == (None, None), two
    assert job["segments"][1]["tts_calls"] == 0, job["segments"]  # unchanged: the cache's
    assert "结果来自论文自报 未经复现" in vtt, vtt  # the subtitles' layout drops the comma
    assert "新的屏幕字" in vtt and "旧的屏幕字" not in vtt, vtt
    (screen,) = [cue for cue in manifest["cues"] if cue["text"] == "新的屏幕字"]
    assert (screen["start"], screen["end"]) == (0, 4), screen


def test_download_all_and_the_masters_grouped(bench: Any) -> None:
    """The job view offers the whole job as one zip (GET /v1/jobs/{id}/artifacts.zip, a
    real zip of its artifacts); masters/<name>/... files are listed under their master."""
    import io
    import zipfile

    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    open_preview(driver, stack, job_id)
    assert driver.find_element(By.ID, "download-all").is_displayed()
    got = httpx.get(f"{stack.url}/v1/jobs/{job_id}/artifacts.zip", timeout=30)
    assert got.status_code == 200
    assert "video.mp4" in zipfile.ZipFile(io.BytesIO(got.content)).namelist()
    groups = driver.execute_script(
        """studio.downloads({id: arguments[0], artifacts: ['narration.wav', 'masters/vertical/video.mp4',
             'masters/vertical/subtitles.srt', 'masters/square/video.mp4']});
           const out = Array.from(document.querySelectorAll('#masters .master')).map(m =>
             [m.dataset.master, Array.from(m.querySelectorAll('button')).map(b => b.dataset.name)]);
           out.push(Array.from(document.querySelectorAll('#downloads button')).map(b => b.dataset.name));
           return out;""",
        job_id,
    )
    assert groups == [
        ["vertical", ["masters/vertical/video.mp4", "masters/vertical/subtitles.srt"]],
        ["square", ["masters/square/video.mp4"]],
        ["narration.wav"],
    ], groups


def test_a_search_the_list_cannot_answer_asks_the_server(bench: Any) -> None:
    """A piece from the middle of a job's id matches nothing listed (the list matches ids by
    their start): the page asks GET /v1/jobs?q= and lists the server's answer; an empty
    search lists the recent jobs again."""
    stack, driver, video = bench
    job_id = job_with_video(stack, video)
    driver.get(stack.url + "/#/new")
    until(driver, 10, lambda d: d.find_elements(By.CSS_SELECTOR, "#job-list li"), "listed")
    box = driver.find_element(By.ID, "job-search")
    box.send_keys(job_id[9:17])
    shown = "return Array.from(document.querySelectorAll('#job-list li:not([hidden]) button')).map(b => b.dataset.id)"
    until(driver, 10, lambda d: d.execute_script(shown) == [job_id], "the server's answer")
    asked = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('q='))"
    )
    assert any(job_id[9:17] in n for n in asked), asked
    box.clear()
    box.send_keys(" ")
    until(driver, 10, lambda d: len(d.execute_script(shown)) > 1, "all again")


def test_a_batch_of_scripts_is_followed_in_its_own_view(bench: Any, tmp_path: Path) -> None:
    """Two script files chosen at once go in as one batch; #/batches/<id> follows its event
    stream to the end, each item links to its job, the batch zip is offered; axe finds
    nothing in the batch view at both sizes."""
    stack, driver, _ = bench
    files = []
    for name, text in (("intro", "[段 1 · 2 秒] 开场。"), ("outro", "[段 1 · 2 秒] 结尾。")):
        (tmp_path / f"{name}.md").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"{name}.md"))
    driver.get(stack.url + "/#/new")
    driver.execute_script("localStorage.removeItem('narrate.draft')")
    driver.refresh()
    Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
    driver.find_element(By.ID, "batch-files").send_keys("\n".join(files))
    driver.find_element(By.ID, "batch-submit").click()
    until(driver, 20, lambda d: "#/batches/" in d.current_url, "batch view")
    batch = driver.current_url.rsplit("/", 1)[1]
    until(
        driver,
        10,
        lambda d: d.find_element(By.ID, "batch").get_attribute("data-stream"),
        "streamed",
    )
    assert driver.find_element(By.ID, "batch").get_attribute("data-stream") == "eventsource"
    until(
        driver,
        120,
        lambda d: d.find_element(By.ID, "batch").get_attribute("data-status") == "succeeded",
        "batch done",
    )
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#batch-items tbody tr'))"
        ".map(r => [r.cells[0].textContent, r.dataset.state, r.dataset.job])"
    )
    assert [r[0] for r in rows] == ["intro", "outro"], rows
    assert {r[1] for r in rows} == {"succeeded"}, rows
    assert driver.find_element(By.ID, "batch-zip").is_displayed()
    assert axe_views(driver, "batch") == []
    first = rows[0][2]
    # A re-read (each event re-reads the batch, the list is re-read every few seconds) keeps
    # the nodes the editor is on: the focused item link and job button stay focused.
    kept = """const [sel, reread] = [arguments[0], arguments[1]], done = arguments[arguments.length - 1];
        const a = document.querySelector(sel); a.focus();
        (reread === 'batch' ? studio.readBatch(studio.state.batchId) : studio.loadJobs()).then(() =>
          done([document.activeElement === a, document.contains(a)]));"""
    link = f"#batch-items a[href='#/jobs/{first}']"
    assert driver.execute_async_script(kept, link, "batch") == [True, True]
    button = f"#job-list [data-id='{first}']"
    assert driver.execute_async_script(kept, button, "list") == [True, True]
    # The view may still re-render as the stream's last events land: find and click as one
    # step, again if the link was replaced in between.
    until(driver, 10, lambda d: d.find_element(By.CSS_SELECTOR, link).click() or True, "click")
    until(driver, 10, lambda d: d.current_url.endswith(f"#/jobs/{first}"), "item's job")
    until(driver, 10, lambda d: d.find_element(By.ID, "job").is_displayed(), "job view")
    driver.back()
    until(driver, 10, lambda d: d.find_element(By.ID, "batch").is_displayed(), "back to the batch")
    assert batch in driver.current_url
    driver.forward()  # the item's job view links back to its batch
    until(
        driver,
        10,
        lambda d: d.find_element(By.CSS_SELECTOR, "#job-meta a.batch-link").click() or True,
        "the link to the batch",
    )
    until(driver, 10, lambda d: d.find_element(By.ID, "batch").is_displayed(), "the batch again")


def test_two_tabs_of_one_studio_stay_in_step(bench: Any) -> None:
    """Two windows on the same studio, neither reloaded: the script, the engine and the video
    chosen in one's compose form show in the other's; a job submitted in one is listed in the
    other at once, not at the list's next 20 s read. (Windows, not tabs: switching tabs makes
    one visible, and a tab shown reads its list again anyway.)"""
    stack, driver, video = bench
    driver.get(stack.url + "/#/new")
    driver.execute_script("localStorage.removeItem('narrate.draft')")
    driver.refresh()
    first = driver.current_window_handle
    driver.switch_to.new_window("window")
    second = driver.current_window_handle
    driver.get(stack.url + "/#/new")
    until(
        driver, 10, lambda d: d.execute_script("return studio.state.listTimer !== null"), "listed"
    )
    driver.execute_script("window.sameDocument = true")  # gone if this tab reloads
    script = "[段 1 · 3 秒] 两个标签页。"

    def in_second(cond: Any, what: str) -> Any:
        driver.switch_to.window(second)
        try:
            return until(driver, 5, cond, what)
        finally:
            driver.switch_to.window(first)

    try:
        driver.switch_to.window(first)
        driver.find_element(By.ID, "script").send_keys(script)
        Select(driver.find_element(By.ID, "engine")).select_by_value("espeak")
        driver.find_element(By.ID, "video").send_keys(str(video))
        in_second(
            lambda d: d.find_element(By.ID, "script").get_attribute("value") == script,
            "the draft's script in the other tab",
        )
        in_second(
            lambda d: d.find_element(By.ID, "engine").get_attribute("value") == "espeak", "engine"
        )
        in_second(lambda d: "clip.mp4" in d.find_element(By.ID, "video-name").text, "the video")
        driver.find_element(By.ID, "submit").click()
        until(driver, 20, lambda d: "#/jobs/" in d.current_url, "submitted")
        job_id = driver.current_url.rsplit("/", 1)[1]
        in_second(
            lambda d: d.find_elements(By.CSS_SELECTOR, f"#job-list [data-id='{job_id}']"),
            "the job listed in the other tab",
        )
        driver.switch_to.window(second)
        assert driver.execute_script("return window.sameDocument") is True  # no reload
        assert driver.current_url.endswith("#/new")
    finally:
        driver.switch_to.window(second)
        driver.close()
        driver.switch_to.window(first)
    with httpx.Client(base_url=stack.url, timeout=30) as c:
        assert wait_for(c, job_id, timeout=120)["status"] == "succeeded"


def test_a_language_switch_and_a_sign_out_reach_the_other_window(bench: Any) -> None:
    """Two windows of one studio, signed in with a key, the second on a job of that key: the
    language switched in the first switches the second's page (its words and lang); a
    sign-out in the first signs the second out: its job view closes to an empty compose
    form, the job is no longer listed, and it says no key is saved. Neither reloads."""
    import json

    stack, driver, _ = bench
    key = stack.keys["alpha"]
    spec = {
        "title": "两个窗口",
        "language": "zh",
        "segments": [{"text": "两个窗口。", "seconds": 2}],
    }
    with httpx.Client(
        base_url=stack.url, timeout=30, headers={"Authorization": f"Bearer {key}"}
    ) as c:
        r = c.post("/v1/jobs", files={"script": ("s.json", json.dumps(spec).encode(), "application/json")},
                   data={"options": json.dumps({"engine": "espeak"})})  # fmt: skip
        job_id = r.json()["id"]
        assert wait_for(c, job_id, timeout=60)["status"] == "succeeded"
    driver.get(stack.url + "/#/new")
    driver.execute_script("localStorage.setItem('narrate.lang', 'en')")
    driver.refresh()
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
    first = driver.current_window_handle
    driver.switch_to.new_window("window")
    second = driver.current_window_handle
    driver.get(f"{stack.url}/#/jobs/{job_id}")
    until(
        driver, 30, lambda d: d.find_element(By.ID, "fix").is_displayed(), "the job, with the key"
    )
    driver.execute_script("window.sameDocument = true")  # gone if this window reloads
    page = """return [document.documentElement.lang, document.getElementById('signout').textContent,
        document.getElementById('who').textContent, location.hash, document.getElementById('job').hidden,
        !!document.querySelector('#job-list [data-id="' + arguments[0] + '"]'), window.sameDocument === true]"""

    def in_second(cond: Any, what: str) -> Any:
        driver.switch_to.window(second)
        try:
            return until(driver, 10, cond, what)
        finally:
            driver.switch_to.window(first)

    try:
        in_second(lambda d: d.execute_script(page, job_id)[5], "the job listed")
        driver.switch_to.window(first)
        Select(driver.find_element(By.ID, "lang")).select_by_value("zh-CN")
        now = in_second(
            lambda d: (
                d.execute_script(page, job_id)[0] == "zh-CN" and d.execute_script(page, job_id)
            ),
            "zh",
        )
        assert now == [
            "zh-CN",
            "退出",
            "密钥已保存在本浏览器",
            f"#/jobs/{job_id}",
            False,
            True,
            True,
        ], now
        driver.find_element(By.ID, "signout").click()
        now = in_second(
            lambda d: (
                d.execute_script(page, job_id)[3] == "#/new" and d.execute_script(page, job_id)
            ),
            "out",
        )
        assert now == ["zh-CN", "退出", "未用密钥（仅本机可用）", "#/new", True, False, True], now
        driver.switch_to.window(second)
        assert driver.execute_script("return localStorage.getItem('narrate.key')") is None
        assert driver.find_element(By.ID, "compose").is_displayed()
    finally:
        driver.switch_to.window(second)
        driver.close()
        driver.switch_to.window(first)
        Select(driver.find_element(By.ID, "lang")).select_by_value("en")


def test_with_a_key_the_job_view_follows_the_stream_by_fetch(bench: Any) -> None:
    """Signed in with a key, the job view reads GET /v1/jobs/{id}/events with fetch() and
    the Authorization header (EventSource cannot send it) and follows the job to its end."""
    import json

    stack, driver, _ = bench
    # Held at its gate until the page follows it: the stream is read while the job runs.
    segments = [
        {"text": "带钥匙 SEGHOLDKEYED。", "seconds": 2},
        {"text": "第二段。", "seconds": 1.5},
    ]
    spec = {"title": "keyed", "language": "zh", "segments": segments}
    driver.get(stack.url + "/#/new")
    driver.find_element(By.ID, "key").send_keys(stack.keys["alpha"])
    driver.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
    with httpx.Client(
        base_url=stack.url, timeout=30, headers={"Authorization": f"Bearer {stack.keys['alpha']}"}
    ) as c:
        r = c.post("/v1/jobs", files={"script": ("s.json", json.dumps(spec).encode(), "application/json")},
                   data={"options": json.dumps({"engine": "espeak"})})  # fmt: skip
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
    try:
        driver.get(f"{stack.url}/#/jobs/{job_id}")
        until(
            driver,
            10,
            lambda d: d.find_element(By.ID, "job").get_attribute("data-stream"),
            "stream",
        )
        assert driver.find_element(By.ID, "job").get_attribute("data-stream") == "fetch"
        stack.gate("KEYED").reached()
        stack.gate("KEYED").open()
        until(
            driver,
            60,
            lambda d: (
                d.find_element(By.CSS_SELECTOR, "#job-status .state").get_attribute("data-state")
                == "succeeded"
            ),
            "followed to the end",
        )
        assert (
            driver.execute_script("return localStorage.getItem('narrate.key')")
            == stack.keys["alpha"]
        )
    finally:
        driver.find_element(By.ID, "signout").click()

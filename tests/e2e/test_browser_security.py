"""The keyless loopback API against hostile pages, in the real Chromium: a page on another
origin posting jobs (CSRF: a form and a no-cors fetch), a page that renamed itself onto
127.0.0.1 (DNS rebinding, simulated by Chromium's host resolver rules) reading and deleting
jobs; and the studio and /docs under their Content-Security-Policy, fetching nothing from
elsewhere."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.stack import Stack, chromium, free_port, needs_chromium, start_stack

pytestmark = needs_chromium
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

EVIL = "evil.example"
SPEC = {"language": "en", "segments": [{"text": "Planted by another site.", "seconds": 2}]}

# The attacker's page: a text/plain form whose body is a JSON job spec (the field name
# carries the JSON, the "=" lands in the title), a multipart form with a script field, and
# a no-cors fetch (the forms answer into iframes). (A DELETE
# from another origin needs a CORS preflight, which the API never grants.)
ATTACK = """<!doctype html><title>attacker</title>
<iframe name="a"></iframe><iframe name="b"></iframe>
<form id="plain" method="POST" action="{api}/v1/jobs" enctype="text/plain" target="a">
<input name='{plain_name}' value='"}}'></form>
<form id="multi" method="POST" action="{api}/v1/jobs" enctype="multipart/form-data" target="b">
<textarea name="script">[段 1 · 2 秒] 别的网站提交的。</textarea></form>
<script>
window.attack = () => {{
  document.getElementById("plain").submit();
  document.getElementById("multi").submit();
  return fetch("{api}/v1/jobs", {{method: "POST", mode: "no-cors", body: {fetch_body},
                                 headers: {{"Content-Type": "text/plain"}}}});
}};
</script>"""


@pytest.fixture(scope="module")
def open_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A loopback API without keys (the mode a hostile page can reach); jobs just queue."""
    s = start_stack(tmp_path_factory.mktemp("open"), workers=0, require_keys="false")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    rebind = f"--host-resolver-rules=MAP {EVIL} 127.0.0.1"  # the rebinding, done
    profile = tmp_path_factory.mktemp("security") / "profile"
    with chromium(profile, rebind, logs=("browser", "performance")) as driver:
        yield driver


@pytest.fixture
def browser(chrome: Any) -> Any:
    """The module's browser on a blank page, its logs read empty: each test judges only the
    requests and reports of its own pages. (No test here depends on what a page stored.)"""
    chrome.get("about:blank")
    for log in ("browser", "performance"):
        chrome.get_log(log)  # reading a log empties it
    return chrome


@pytest.fixture
def attacker() -> Iterator[tuple[str, dict[str, str]]]:
    """A second web server, on another origin (localhost:<port>), serving ``pages[path]``."""
    pages: dict[str, str] = {}

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}", pages
    server.shutdown()
    server.server_close()


def jobs(stack: Stack) -> list[dict[str, Any]]:
    r = httpx.get(f"{stack.url}/v1/jobs", params={"limit": 200}, timeout=10)
    assert r.status_code == 200, r.text
    return list(r.json()["jobs"])


def answers(driver: Any, path: str, n: int, timeout: float = 30) -> list[tuple[str, int | str]]:
    """(method, status) of the first ``n`` responses to ``path`` the browser got, from its
    own log (the page's script sees none: the forms' answers go to frames, and the fetch's
    is opaque, or blocked by Cross-Origin-Resource-Policy). Chromium does not always log the
    status line of a response it then blocks: such a one counts as "blocked" (the API
    answered, and the browser kept the answer from the page)."""
    sent: dict[str, str] = {}
    got: dict[str, int | str] = {}

    def arrived(d: Any) -> bool:
        for entry in d.get_log("performance"):
            event = json.loads(entry["message"])["message"]
            params = event.get("params", {})
            rid = params.get("requestId")
            if event["method"] == "Network.requestWillBeSent" and path in params["request"]["url"]:
                sent[rid] = params["request"]["method"]
            elif event["method"] == "Network.responseReceivedExtraInfo" and rid in sent:
                got[rid] = params["statusCode"]  # what came off the wire, blocked or not
            elif (
                event["method"] == "Network.loadingFailed"
                and rid in sent
                and params.get("blockedReason")
            ):
                got.setdefault(rid, "blocked")
        return len(got) >= n

    WebDriverWait(driver, timeout, poll_frequency=0.2).until(arrived, f"{n} answers to {path}")
    return [(sent[rid], status) for rid, status in got.items()]


def csp_violations(driver: Any) -> list[str]:
    return [
        e["message"]
        for e in driver.get_log("browser")
        if "Content Security Policy" in e["message"] or "Refused to" in e["message"]
    ]


def test_another_site_cannot_create_jobs(
    open_stack: Stack, browser: Any, attacker: tuple[str, dict[str, str]]
) -> None:
    site, pages = attacker
    before = jobs(open_stack)
    plain = json.dumps(SPEC)[:-1] + ', "title": "x'  # + "=" + '"}' = a JSON spec
    pages["/attack.html"] = ATTACK.format(
        api=open_stack.url,
        plain_name=plain,
        fetch_body=json.dumps(json.dumps(SPEC)),
    )
    browser.get(site + "/attack.html")
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; attack().then(() => done(), done);"
    )
    statuses = answers(browser, "/v1/jobs", 3)
    # Each reached the API and was refused (an answer the browser then blocked may show only
    # as "blocked"), and none made a job.
    assert all(status in (403, "blocked") for _, status in statuses), statuses
    assert ("POST", 403) in statuses, statuses
    assert jobs(open_stack) == before

    # The studio page, on the API's own origin, still submits without a key.
    browser.get(open_stack.url + "/")
    created = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        fetch("/v1/jobs", {method: "POST", body: arguments[0],
                           headers: {"Content-Type": "application/json"}})
          .then((r) => done(r.status), (e) => done(String(e)));""",
        json.dumps(SPEC),
    )
    assert created == 202
    assert len(jobs(open_stack)) == len(before) + 1


def test_a_rebound_page_reads_nothing_and_deletes_nothing(open_stack: Stack, browser: Any) -> None:
    job = httpx.post(f"{open_stack.url}/v1/jobs", json=SPEC, timeout=10).json()["id"]
    # The attacker's page, renamed onto 127.0.0.1: its own origin (evil.example:<port>)
    # now reaches the API, so to the browser every call below is same-origin.
    browser.get(f"http://{EVIL}:{open_stack.api_port}/")
    assert browser.find_element(By.TAG_NAME, "body").text.count("NARRATE_ALLOWED_HOSTS") == 1
    seen = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const get = (p, m) => fetch(p, {method: m || "GET"}).then(async (r) =>
          ({status: r.status, body: await r.text()}));
        Promise.all([get("/v1/jobs"), get("/v1/jobs/" + arguments[0]),
                     get("/v1/jobs/" + arguments[0] + "/source"),
                     get("/v1/jobs/" + arguments[0], "DELETE")])
          .then(done, (e) => done(String(e)));""",
        job,
    )
    assert [s["status"] for s in seen] == [421] * 4, seen
    assert all(job not in s["body"] for s in seen)
    still = httpx.get(f"{open_stack.url}/v1/jobs/{job}", timeout=10)
    assert still.status_code == 200 and still.json()["status"] == "queued"


def test_studio_and_docs_run_under_their_csp_from_this_server(
    open_stack: Stack, browser: Any
) -> None:
    browser.get(open_stack.url + "/")
    WebDriverWait(browser, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#voice option[value]:not([value=''])")
    )
    browser.get(open_stack.url + "/docs")
    ops = WebDriverWait(browser, 20).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"), "Swagger UI drew no operation"
    )
    assert len(ops) >= 9
    assert csp_violations(browser) == []
    urls = [
        json.loads(e["message"])["message"]["params"]["request"]["url"]
        for e in browser.get_log("performance")
        if '"Network.requestWillBeSent"' in e["message"]
    ]
    fetched = [u for u in urls if u.startswith(("http:", "https:"))]
    assert fetched and all(u.startswith(open_stack.url + "/") for u in fetched), fetched

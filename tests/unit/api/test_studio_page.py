"""The studio page as the API serves it: one module script (no inline script: the CSP allows
scripts from this origin only), every module it imports served as JavaScript and revalidated
on each load (a deploy's new module is never run beside an old copy of another), and each
preloaded by index.html so the browser fetches them at once, not import by import."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.fleet import Fleet

STATIC = Path(__file__).resolve().parents[3] / "service" / "api" / "static"
IMPORT = re.compile(
    r'^(?:import|export)\b[^;"]*?from\s+"\./([\w.-]+)"|^import\s+"\./([\w.-]+)"', re.M
)


def imports(name: str) -> set[str]:
    text = (STATIC / name).read_text(encoding="utf-8")
    return {a or b for a, b in IMPORT.findall(text)}


def reached(entry: str) -> set[str]:
    """Every module the page loads: the entry and what it imports, transitively."""
    seen, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imports(name))
    return seen


def test_the_page_loads_one_module_that_reaches_every_file(fleet: Fleet) -> None:
    with fleet.client() as c:
        page = c.get("/").text
        scripts = re.findall(r"<script\b[^>]*>", page)
        assert scripts == ['<script type="module" src="/studio/main.js">'], scripts
        assert re.search(r"<script\b[^>]*>\s*[^<\s]", page) is None  # no inline script
        assert "script-src 'self'" in c.get("/").headers["content-security-policy"]
        modules = reached("main.js")
        # every module is reached (none left over), and preloaded
        assert modules == {p.name for p in STATIC.glob("*.js")}
        preloaded = set(re.findall(r'<link rel="modulepreload" href="/studio/([\w.-]+)">', page))
        assert preloaded == modules
        for name in sorted(modules):
            r = c.get(f"/studio/{name}")
            assert r.status_code == 200, name
            assert r.headers["content-type"] == "text/javascript; charset=utf-8", name
            assert r.headers["cache-control"] == "no-cache", name
            assert r.headers["etag"], name
            again = c.get(f"/studio/{name}", headers={"If-None-Match": r.headers["etag"]})
            assert again.status_code == 304, name
        tag = c.get("/studio/main.js").headers["etag"]
        weak = {"If-None-Match": f'"stale", W/{tag}'}  # a list, weakened by a proxy
        assert c.get("/studio/main.js", headers=weak).status_code == 304
        assert c.get("/studio/main.js", headers={"If-None-Match": '"stale"'}).status_code == 200
        assert c.get("/studio/studio.css").headers["cache-control"] == "no-cache"
        assert c.get("/studio/package.json").status_code == 404

"""axe-core for the studio's accessibility tests: the npm package, packed once into the
shared cache (~/.cache/narrate/axe-core-VERSION/axe.min.js) and injected into the page
under test; the page itself never serves or loads it."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

VERSION = "4.14.1"
CACHE = Path.home() / ".cache" / "narrate" / f"axe-core-{VERSION}"


def axe_source() -> str | None:
    """axe.min.js, packed from the npm registry the first time (None: no npm, offline)."""
    js = CACHE / "axe.min.js"
    if not js.is_file():
        npm = shutil.which("npm")
        if npm is None:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                [npm, "pack", f"axe-core@{VERSION}", "--silent"],
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=120,
            )
            packed = Path(tmp) / done.stdout.strip().splitlines()[-1] if done.stdout else None
            if done.returncode != 0 or packed is None or not packed.is_file():
                return None
            with tarfile.open(packed) as tar:
                member = tar.extractfile("package/axe.min.js")
                if member is None:
                    return None
                CACHE.mkdir(parents=True, exist_ok=True)
                tmp_js = CACHE / ".axe.min.js.tmp"
                tmp_js.write_bytes(member.read())
                tmp_js.replace(js)
    return js.read_text(encoding="utf-8")


def violations(driver: Any, source: str) -> list[str]:
    """axe's violations on the page as it is now: "rule: target" for each node."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        # Injected once per page: a view is checked at two sizes, and each injection parses
        # and compiles half a megabyte of script again.
        driver.execute_script(source)
    found = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v =>
          v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')))).catch(e => done(['axe: ' + e]));"""
    )
    return list(found)

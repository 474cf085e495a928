"""The timeline limit at the CLI's door: exit 2 with one line naming the field, before any
audio is made; the limit is the setting NARRATE_MAX_TIMELINE (1 h by default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.data import SHORT_SCRIPT


def narrate(*args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


def test_a_start_past_an_hour_exits_2_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "late.json"
    spec = {"segments": [{"text": "好", "seconds": 2}, {"text": "好", "seconds": 2, "start": 3600}]}
    path.write_text(json.dumps(spec), encoding="utf-8")
    proc = narrate("render", path, "--out", tmp_path / "out", "--engine", "espeak")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "narrate: error: segment 2 start: ends at 3602 s, past the timeline limit of 3600 s "
        "(NARRATE_MAX_TIMELINE)"
    ]
    assert not (tmp_path / "out").exists()


def test_the_limit_is_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "short.md"
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    proc = narrate(
        "render", path, "--out", tmp_path / "out", "--engine", "espeak", NARRATE_MAX_TIMELINE="9"
    )
    assert proc.returncode == 2
    assert "segment 2 seconds: ends at 9.5 s, past the timeline limit of 9 s" in proc.stderr

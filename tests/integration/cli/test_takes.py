"""`narrate render --take`: recorded takes on the command line, as over the API."""

from __future__ import annotations

import json
from pathlib import Path

from devtools.takes import take
from tests.support.helpers import narrate
from tests.unit.api.test_takes import SCRIPT, phrases


def test_render_speaks_a_take_for_one_segment_and_refuses_one_for_no_segment(
    tmp_path: Path,
) -> None:
    script = tmp_path / "s.md"
    script.write_text(SCRIPT, encoding="utf-8")
    (tmp_path / "one.wav").write_bytes(take(phrases(0))[0])
    done = narrate("render", script, "--out", tmp_path / "out", "--engine", "espeak",
                   "--take", f"1={tmp_path / 'one.wav'}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert [s["voice"] for s in manifest["segments"]] == ["take-1", "en-us"]
    refused = narrate("render", script, "--out", tmp_path / "no", "--take",
                      f"3={tmp_path / 'one.wav'}")  # fmt: skip
    assert refused.returncode == 2 and "take-3: no segment 3" in refused.stderr
    assert not (tmp_path / "no").exists()

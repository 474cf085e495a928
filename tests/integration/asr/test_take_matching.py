"""Script matching (文稿匹配) with the real recogniser through ``narrate render``: one take of
the whole script that skips a line is split by the recogniser's words matched to the script,
so the skipped line is the one flagged and its neighbours keep their own audio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devtools.takes import take
from tests.support.helpers import narrate

SCRIPT = """\
  • Title: Takes
  • Language: en

[Segment 1 · 6 s Hook] Reinforcement learning for software rewards one thing.

[Segment 2 · 6 s Point] The tests can pass while the program is still wrong.

[Segment 3 · 6 s Result] Every new version is tested by a person before it ships.
"""
# The lines the take reads are ones Whisper base hears word for word in espeak-ng's en-us+f3
# at 150-190 wpm, so only the skipped line can cross the 25 % WER threshold. "code agents"
# was heard as "cocaine and" (and "rewards" now and then as "reward": 3 of 9 words, flagged);
# "change" as "chain".
LINES = [
    "Reinforcement learning for software rewards one thing.",
    "The tests can pass while the program is still wrong.",
    "Every new version is tested by a person before it ships.",
]


def test_a_whole_take_that_skips_a_line_flags_that_line_and_only_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NARRATE_SPEECH_CHECK", "true")  # the suite turns it off (conftest)
    script = tmp_path / "s.md"
    script.write_text(SCRIPT, encoding="utf-8")
    recording = tmp_path / "take.wav"
    recording.write_bytes(take([LINES[0], LINES[2]], wpm=170, gap_ms=700)[0])
    done = narrate("render", script, "--out", tmp_path / "out", "--engine", "espeak",
                   "--take", str(recording))  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    checks = [s["speech_check"] for s in manifest["segments"]]
    assert manifest["speech_check"]["flagged"] == [2], checks
    assert "reinforcement" in checks[0]["transcript"].lower()
    assert "person before it ships" in checks[2]["transcript"].lower()
    assert "program" not in (checks[1]["transcript"] or "").lower()
    assert any(d["kind"] == "missing" for d in checks[1]["diff"]), checks[1]

"""The speech check with the real recogniser on real audio: a render whose segment 2 is a
take of another text is flagged (manifest, warning, CLI), fails the job with on_mismatch
fail, and a take of the right text is not flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devtools.takes import take
from tests.support.helpers import narrate
from tests.unit.api.test_takes import SCRIPT, WRONG, phrases


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NARRATE_SPEECH_CHECK", "true")  # the suite turns it off (conftest)
    path = tmp_path / "s.md"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


@pytest.fixture
def takes(tmp_path: Path, script: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "right.wav").write_bytes(take(phrases(0), wpm=170)[0])
    (tmp_path / "wrong.wav").write_bytes(take(WRONG, wpm=170)[0])
    return script, tmp_path / "right.wav", tmp_path / "wrong.wav"


def test_a_take_of_another_text_is_flagged_and_the_right_one_is_not(
    tmp_path: Path, takes: tuple[Path, Path, Path]
) -> None:
    script, right, wrong = takes
    done = narrate("render", script, "--out", tmp_path / "out", "--engine", "espeak",
                   "--take", f"1={right}", "--take", f"2={wrong}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    one, two = (s["speech_check"] for s in manifest["segments"])
    assert one["status"] == "checked" and not one["flagged"], one
    assert "reinforcement learning" in one["transcript"].lower()
    assert two["flagged"] and two["error_rate"] > 0.5, two
    assert "mountains" in two["transcript"].lower()
    summary = manifest["speech_check"]
    assert summary["flagged"] == [2] and summary["checked"] == 2
    assert summary["cpu_seconds"] > 0 and summary["recogniser"] == "whisper-base-ct2-int8"
    warned = [w for w in manifest["warnings"] if w["code"] == "speech.mismatch"]
    assert [w["segment"] for w in warned] == [2]
    assert "speech check" in done.stderr and "flagged: segment 2" in done.stdout


def test_on_mismatch_fail_fails_the_render_naming_the_segment(
    tmp_path: Path, takes: tuple[Path, Path, Path]
) -> None:
    # Only segment 2's take: segment 1 (espeak, skipped) costs the recogniser nothing, and the
    # right take's check is the test above's.
    script, _, wrong = takes
    done = narrate("render", script, "--out", tmp_path / "out", "--engine", "espeak",
                   "--take", f"2={wrong}", "--on-mismatch", "fail")  # fmt: skip
    assert done.returncode == 1
    assert "speech check flagged segment 2" in done.stderr
    assert not (tmp_path / "out").exists()


def test_espeak_segments_are_skipped_and_no_check_speech_leaves_it_out(
    tmp_path: Path, script: Path
) -> None:
    done = narrate("render", script, "--out", tmp_path / "a", "--engine", "espeak")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text(encoding="utf-8"))
    assert {s["speech_check"]["status"] for s in manifest["segments"]} == {"skipped"}
    assert "not checkable" in manifest["segments"][0]["speech_check"]["reason"]
    assert manifest["speech_check"]["checked"] == 0
    off = narrate("render", script, "--out", tmp_path / "b", "--engine", "espeak",
                  "--no-check-speech")  # fmt: skip
    assert off.returncode == 0, off.stderr
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert "speech_check" not in manifest and "speech_check" not in manifest["segments"][0]

"""Recorded takes through the real stack (uvicorn, Redis, Celery workers, ffmpeg): one
render, sent by `narrate submit --take`, of a two-segment script with a take for each
segment, made by espeak-ng in another voice, rate and pitch. Segment 1's take reads its text: its subtitle cues start on its
phrases. Segment 2's take reads another text: the job warns, naming segment 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devtools.takes import take
from tests.support.helpers import check_render, narrate, read_manifest
from tests.support.stack import Stack, wait_for
from tests.unit.api.test_takes import SCRIPT, WRONG, on_phrases, phrases


@pytest.fixture(scope="module")
def rendered(
    stack: Stack, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Stack, dict[str, Any], list[int], Path]:
    """One render on the session's stack, which the three tests look at."""
    right, onsets = take(phrases(0), voice="en-us+f4", wpm=205, pitch=80)
    files = tmp_path_factory.mktemp("takes")
    (files / "s.md").write_text(SCRIPT, encoding="utf-8")
    (files / "one.wav").write_bytes(right)
    (files / "two.wav").write_bytes(take(WRONG)[0])
    out = tmp_path_factory.mktemp("dl") / "out"
    # The client sends the takes as the multipart parts take-1 and take-2.
    done = narrate("submit", files / "s.md", "--url", stack.url, "--key",
                   stack.keys["alpha"], "--engine", "espeak", "--take",
                   f"1={files / 'one.wav'}", "--take", f"2={files / 'two.wav'}",
                   "--out", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    with stack.client() as c:
        job = wait_for(c, done.stdout.splitlines()[0], timeout=60)
    return stack, job, onsets, out


def test_the_takes_are_stored_and_spoken(
    rendered: tuple[Stack, dict[str, Any], list[int], Path],
) -> None:
    stack, job, _, out = rendered
    inputs = stack.data_dir / "artifacts" / "alpha" / job["id"] / "input"
    assert (inputs / "source.take-1").is_file() and (inputs / "source.take-2").is_file()
    manifest = read_manifest(out)
    assert [s["voice"] for s in manifest["segments"]] == ["take-1", "take-2"]
    assert all(s["take"] and s["alignment_cost"] > 0 for s in manifest["segments"])


def test_cues_start_on_the_take_phrases_and_a_wrong_take_is_warned(
    rendered: tuple[Stack, dict[str, Any], list[int], Path],
) -> None:
    _, job, onsets, out = rendered
    manifest = read_manifest(out)
    first = manifest["segments"][0]
    starts = [c["start"] * 1000 for c in manifest["cues"] if c["layer"] == 0]
    mine = [s for s in starts if s < first["end"] * 1000]
    assert len(mine) >= 2 and on_phrases(mine, onsets), (mine, onsets)
    warned = [w for w in job["warnings"] if w["code"] == "take.mismatch"]
    assert [w["segment"] for w in warned] == [2], job["warnings"]


def test_the_render_checker_passes_the_takes(
    rendered: tuple[Stack, dict[str, Any], list[int], Path],
) -> None:
    """Slots exact, speech inside them, -16 LUFS, and every cue on its speech (within 3
    frames after a pause), as for synthesis."""
    check_render(rendered[3], [7.0, 6.0], None)

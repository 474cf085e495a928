"""Recorded takes in place of synthesis, in-process: the parts are checked at the door
(422s naming the part), a mixed job (a take for one segment, synthesis for the other)
renders with the take's phrases timed from the alignment, a take of another text is warned
about, and one take of the whole script is split among the segments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from devtools.takes import take
from service.domain.script import parse_script
from service.domain.text import split_phrases
from tests.support.fleet import Fleet, make_fleet

SCRIPT = """\
  • Title: Takes
  • Language: en

[Segment 1 · 7 s Hook] Most reinforcement learning for code agents rewards one thing. Did the tests pass?

[Segment 2 · 6 s Result] The result is better code, and steadier training.
"""
TOLERANCE_MS = 150
# A take of another text for segment 2 (its alignment cost 0.73, the right text's 0.62).
WRONG = [
    "Tomorrow it will rain over the mountains,",
    "and the farmers are glad of it,",
    "and so are the birds.",
]


def phrases(index: int) -> list[str]:
    spec = parse_script(SCRIPT)
    text = spec.segments[index].text
    return [text[a:b] for a, b in split_phrases(text, spec.line_chars, None)]


def on_phrases(starts: Sequence[float], onsets: Sequence[float]) -> bool:
    """Every cue starts on a phrase's onset (a cue may hold more than one phrase)."""
    return all(min(abs(s - o) for o in onsets) <= TOLERANCE_MS for s in starts)


def post(fleet: Fleet, files: dict[str, bytes]) -> Any:
    parts: dict[str, Any] = {"script": ("script.md", SCRIPT.encode(), "text/markdown")}
    parts |= {name: (f"{name}.wav", data, "audio/wav") for name, data in files.items()}
    with fleet.client() as c:
        return c.post("/v1/jobs", files=parts, data={"options": json.dumps({"engine": "espeak"})})


def finished(fleet: Fleet, job_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    fleet.work()
    with fleet.client() as c:
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["status"] == "succeeded", job["error"]
        manifest = c.get(job["links"]["artifacts"]["manifest.json"]).json()
    return job, manifest


@pytest.mark.parametrize(
    ("part", "data", "said"),
    [
        ("take-3", b"", "take-3: no segment 3 (the script has 2)"),
        ("take-0", b"", "take-0: not a take part"),
        ("take-1", b"not audio at all", "take-1: not audio"),
        ("take-2", None, "take-2: too long (over 2 s)"),
    ],
)
def test_a_take_that_cannot_be_used_is_a_422_naming_its_part(
    tmp_path: Any, part: str, data: bytes | None, said: str
) -> None:
    fleet = make_fleet(tmp_path, max_take_seconds=2.0)
    body = data if data is not None else take(phrases(1))[0]  # 3.4 s of speech
    r = post(fleet, {part: body})
    assert r.status_code == 422, r.text
    problem = r.json()["detail"][0]
    assert problem["code"] == "take.invalid" and problem["loc"] == [part]
    assert problem["msg"].startswith(said)
    assert fleet.queue.drain(lambda *_: None) == 0  # nothing was queued


def test_a_whole_take_cannot_come_with_takes_per_segment(fleet: Fleet) -> None:
    wav = take(phrases(0))[0]
    r = post(fleet, {"take": wav, "take-1": wav})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["take"]


def test_a_mixed_job_times_the_take_from_the_alignment_and_warns_of_a_wrong_take(
    fleet: Fleet,
) -> None:
    right, onsets = take(phrases(0))
    wrong, _ = take(WRONG)
    r = post(fleet, {"take-1": right})
    assert r.status_code == 202, r.text
    job, manifest = finished(fleet, r.json()["id"])
    first, second = manifest["segments"]
    assert first["take"] and first["engine"] == "take" and first["voice"] == "take-1"
    assert first["alignment_cost"] is not None and not second["take"]
    assert second["engine"] == "espeak" and second["alignment_cost"] is None
    assert not [w for w in manifest["warnings"] if w["code"] == "take.mismatch"]
    cues = [c["start"] * 1000 for c in manifest["cues"] if c["layer"] == 0]
    starts = [c for c in cues if c < first["end"] * 1000]
    assert len(starts) >= 2 and on_phrases(starts, onsets), (starts, onsets)
    r = post(fleet, {"take-2": wrong})
    job, manifest = finished(fleet, r.json()["id"])
    warned = [w for w in job["warnings"] if w["code"] == "take.mismatch"]
    assert [w["segment"] for w in warned] == [2] and "segment 2" in warned[0]["message"]


def test_one_take_of_the_whole_script_is_split_among_the_segments(fleet: Fleet) -> None:
    first, second = phrases(0), phrases(1)
    wav, onsets = take(first + second, gap_ms=450)
    r = post(fleet, {"take": wav})
    assert r.status_code == 202, r.text
    _, manifest = finished(fleet, r.json()["id"])
    segs = manifest["segments"]
    assert [s["voice"] for s in segs] == ["take", "take"] and all(s["take"] for s in segs)
    assert not [w for w in manifest["warnings"] if w["code"] == "take.mismatch"]
    cues = [c for c in manifest["cues"] if c["layer"] == 0]
    # Each segment's cues start with its slot's first phrase: the split fell between them.
    later = [c for c in cues if c["start"] >= segs[1]["start"]]
    assert later and later[0]["text"].startswith("The result"), cues
    # Onsets within each segment, from its first phrase; its slot starts at its first word.
    expected = [o - onsets[0] for o in onsets[: len(first)]]
    expected += [segs[1]["start"] * 1000 + o - onsets[len(first)] for o in onsets[len(first) :]]
    assert on_phrases([c["start"] * 1000 for c in cues], expected), (cues, expected)


def test_takes_are_held_to_their_size_and_count(tmp_path: Any) -> None:
    wav = take(phrases(1))[0]
    big = post(make_fleet(tmp_path / "a", max_take_bytes=len(wav) - 1), {"take-1": wav})
    assert big.status_code == 413 and "take-1 is over the limit" in big.text
    many = post(make_fleet(tmp_path / "b", max_takes=1), {"take-1": wav, "take-2": wav})
    assert many.status_code == 422, many.text
    problem = many.json()["detail"][0]
    assert problem["loc"] == ["take-2"] and problem["msg"].startswith("take-2: more than 1 takes")


def test_a_rerender_keeps_the_takes_of_segments_whose_text_is_unchanged(fleet: Fleet) -> None:
    r = post(fleet, {"take-1": take(phrases(0))[0], "take-2": take(phrases(1))[0]})
    parent = r.json()["id"]
    finished(fleet, parent)
    with fleet.client() as c:
        spec = c.get(f"/v1/jobs/{parent}/source").json()["spec"]
        spec["segments"][1]["text"] = "The result is better code."
        spec["segments"][0]["seconds"] = 8.0
        child = c.post(f"/v1/jobs/{parent}/rerender", json={"spec": spec})
        assert child.status_code == 202, child.text
    _, manifest = finished(fleet, child.json()["id"])
    assert [s["voice"] for s in manifest["segments"]] == ["take-1", "en-us"]
    assert manifest["segments"][0]["end"] == 8.0


def _tone(seconds: float = 20.0, rate: int = 22050) -> bytes:
    """A steady 440 Hz tone: no speech, no pause, nothing the alignment can hold on to."""
    import io
    import wave

    import numpy as np

    t = np.arange(int(rate * seconds)) / rate
    pcm = (0.3 * 32767 * np.sin(2 * np.pi * 440 * t)).astype("<i2").tobytes()
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return out.getvalue()


def test_a_take_of_a_steady_tone_is_a_mismatch_not_a_crash(fleet: Fleet) -> None:
    """20 s of one tone for a short line in a 30 s slot: no path through it at all (even
    the coarse warp finds none), which the alignment read at the wrong length
    (IndexError): now an infinite cost, so the take is said not to match its text."""
    script = SCRIPT.replace("[Segment 1 · 7 s Hook]", "[Segment 1 · 30 s Hook]")
    parts: dict[str, Any] = {
        "script": ("script.md", script.encode(), "text/markdown"),
        "take-1": ("take-1.wav", _tone(), "audio/wav"),
    }
    with fleet.client() as c:
        r = c.post("/v1/jobs", files=parts, data={"options": json.dumps({"engine": "espeak"})})
    assert r.status_code == 202, r.text
    job, _ = finished(fleet, r.json()["id"])
    warned = [w for w in job["warnings"] if w["code"] == "take.mismatch"]
    assert [w["segment"] for w in warned] == [1], job["warnings"]


def test_a_take_far_longer_than_its_segment_is_refused_having_decoded_only_what_it_may_use(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round four: 100 takes of ten minutes kept an API thread 45 s on one request, each
    decoded whole at the door. A take may run 4x its segment's seconds + 30 s (segment 2: 6 s,
    so 54 s): the door decodes that much at most and refuses the rest, naming the part."""
    media = fleet.service.pipeline.media
    asked: list[float] = []
    decode = media.decode_audio

    def decoding(source: Path, dest: Path, rate: int, seconds: float) -> None:
        asked.append(seconds)
        decode(source, dest, rate, seconds)

    monkeypatch.setattr(media, "decode_audio", decoding)
    r = post(fleet, {"take-2": _tone(120.0, 8000)})  # two minutes, for a 6 s segment
    assert r.status_code == 422, r.text
    problem = r.json()["detail"][0]
    assert problem["loc"] == ["take-2"]
    assert problem["msg"].startswith("take-2: too long (for segment 2's 6 s: at most 54 s)")
    assert asked == [55]  # never the two minutes, nor NARRATE_MAX_TAKE_SECONDS (600)

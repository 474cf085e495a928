"""Recorded takes in a batch, in-process: a ``take`` part named <item>.take-N.<ext> goes
with <item>.md as a single job's take-N does (the same checks at the door, the same
render); a take that cannot be used, or that pairs with no item, refuses the batch with a
422 naming its file, and nothing of the batch is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from devtools.takes import take
from tests.support.fleet import Fleet, make_fleet
from tests.unit.api.test_takes import SCRIPT, on_phrases, phrases


def parts(takes: dict[str, bytes]) -> list[tuple[str, Any]]:
    """Two items, intro and outro (the same two-segment script), and ``takes`` (file name ->
    WAV) as ``take`` parts."""
    files: list[tuple[str, Any]] = [
        ("script", (f"{name}.md", SCRIPT.encode(), "text/markdown")) for name in ("intro", "outro")
    ]
    files += [("take", (name, data, "audio/wav")) for name, data in takes.items()]
    return [*files, ("options", (None, json.dumps({"engine": "espeak"})))]


def nothing_kept(fleet: Fleet) -> None:
    with fleet.client() as c:
        assert c.get("/v1/jobs").json()["jobs"] == []
        assert c.get("/v1/batches").json()["batches"] == []
    assert fleet.queue.waiting() == 0
    assert [p for p in fleet.settings.data_dir.rglob("*") if p.is_file()] == []


def test_an_items_take_replaces_its_segments_synthesis(fleet: Fleet) -> None:
    right, onsets = take(phrases(0))
    with fleet.client() as c:
        r = c.post("/v1/batches", files=parts({"intro.take-1.wav": right}))
        assert r.status_code == 202, r.text
        fleet.work()
        done = c.get(f"/v1/batches/{r.json()['id']}").json()
        assert done["status"] == "succeeded", done
        manifests = {}
        for item in done["items"]:
            job = c.get(f"/v1/jobs/{item['job']}").json()
            manifests[item["name"]] = c.get(job["links"]["artifacts"]["manifest.json"]).json()
    first, second = manifests["intro"]["segments"]
    assert first["take"] and first["engine"] == "take" and first["voice"] == "take-1"
    assert first["alignment_cost"] is not None
    assert not second["take"] and second["engine"] == "espeak"
    assert [(s["take"], s["engine"]) for s in manifests["outro"]["segments"]] == [
        (False, "espeak"),
        (False, "espeak"),
    ]
    cues = [c["start"] * 1000 for c in manifests["intro"]["cues"] if c["layer"] == 0]
    starts = [s for s in cues if s < first["end"] * 1000]
    assert len(starts) >= 2 and on_phrases(starts, onsets), (starts, onsets)
    intro = next(i["job"] for i in done["items"] if i["name"] == "intro")
    stored = sorted(p.name for p in fleet.settings.data_dir.rglob("source.take-*"))
    assert stored == ["source.take-1"]
    assert all(p.parent.parent.name == intro for p in fleet.settings.data_dir.rglob("source.*"))


@pytest.mark.parametrize(
    ("file", "loc", "said"),
    [
        (
            "intro.take-3.wav",
            ["items", 0, "take", "intro.take-3.wav"],
            "item 1 (intro): intro.take-3.wav: no segment 3 (the script has 2)",
        ),
        (
            "closing.take-1.wav",
            ["take", "closing.take-1.wav"],
            "take 'closing.take-1.wav' pairs with no item (no closing.md, no item 'closing')",
        ),
        ("intro.wav", ["take", "intro.wav"], "intro.wav: a take's file is named <item>.take-N"),
    ],
)
def test_a_take_for_no_segment_or_no_item_refuses_the_batch_naming_its_file(
    fleet: Fleet, file: str, loc: list[Any], said: str
) -> None:
    wav = take(phrases(0))[0]
    with fleet.client() as c:
        r = c.post("/v1/batches", files=parts({"intro.take-1.wav": wav, file: wav}))
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert problem["loc"] == loc and problem["msg"].startswith(said), problem
    assert problem["code"] == ("batch.unpaired" if "closing" in file else "take.invalid")
    nothing_kept(fleet)


def test_an_items_takes_are_held_to_a_jobs_limits(tmp_path: Path) -> None:
    wav = take(phrases(1))[0]  # 3.4 s of speech
    two = {"intro.take-1.wav": wav, "intro.take-2.wav": wav}
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"max_takes": 1}, 422, "intro.take-2.wav: more than 1 takes in one job"),
        ({"max_take_bytes": len(wav) - 1}, 413, "intro.take-1.wav is over the limit of"),
        ({"max_take_seconds": 2.0}, 422, "item 1 (intro): intro.take-1.wav: too long (over 2 s)"),
    ]
    for n, (limits, status, said) in enumerate(cases):
        fleet = make_fleet(tmp_path / str(n), **limits)
        with fleet.client() as c:
            r = c.post("/v1/batches", files=parts(two))
        assert r.status_code == status and said in r.text, r.text
        nothing_kept(fleet)
    fleet = make_fleet(tmp_path / "each", max_takes=1)  # per item, not per batch
    with fleet.client() as c:
        r = c.post("/v1/batches", files=parts({"intro.take-1.wav": wav, "outro.take-2.wav": wav}))
    assert r.status_code == 202, r.text


def test_an_items_takes_share_its_videos_name(fleet: Fleet, short_video: Path) -> None:
    """The takes go where the item's video does: an item naming a video of another name
    (clip.mp4 for intro) cannot also take intro's takes."""
    files = [
        *parts({"intro.take-1.wav": take(phrases(0))[0]}),
        ("video", ("clip.mp4", short_video.read_bytes(), "video/mp4")),
        ("batch", (None, json.dumps({"items": [{"name": "intro", "video": "clip.mp4"}]}))),
    ]
    with fleet.client() as c:
        r = c.post("/v1/batches", files=files)
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert problem["loc"] == ["items", 0] and "takes and its video or music" in problem["msg"]
    nothing_kept(fleet)

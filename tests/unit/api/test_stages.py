"""The stage a client follows (its events' ``stage`` and ``stage_progress``, in-process): the
finishing stages say it as they start (pipeline/stages.py ``run_stages``), in the order the
job works, and the bar never goes back. A job without a video says no ``mux``; a burn-in
says its encode (``encode NN%``) between the loudness and the mux."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.pipeline.encode_watch import ENCODE_END, ENCODE_START
from tests.support.data import make_video
from tests.support.fleet import Fleet
from tests.unit.api.test_events import parse_sse
from tests.unit.api.test_jobs import SPEC

Said = tuple[str, float | None]
BEFORE = [("synthesize", None), ("finalize", None), ("subtitles", 0.75), ("loudness", 0.75)]
AFTER = [("done", 0.99), ("done", 1.0)]  # the last stage, then the succeeded status


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    return make_video(path, 7, size="240x426", fps=10).read_bytes()


def said(fleet: Fleet, options: dict[str, Any], video: bytes | None) -> list[Said]:
    """The (stage, stage_progress) of each event that says a stage, repeats dropped."""
    body = {k: v for k, v in SPEC.items() if k != "options"}
    files: dict[str, Any] = {
        "script": ("job.json", json.dumps(body).encode(), "application/json"),
        "options": (None, json.dumps(options)),
    }
    if video is not None:
        files["video"] = ("clip.mp4", video, "video/mp4")
    with fleet.client() as c:
        r = c.post("/v1/jobs", files=files)
        assert r.status_code == 202, r.text
        fleet.work()
        events = parse_sse(c.get(f"/v1/jobs/{r.json()['id']}/events").text)
    assert events[-1][2]["status"] == "succeeded", events[-1]
    out: list[Said] = []
    for _, kind, data in events[1:]:
        one: Said = (data.get("stage") or "", data.get("stage_progress"))
        if kind in ("status", "update") and one[0] and (not out or out[-1] != one):
            out.append(one)
    return out


def rising(stages: list[Said]) -> bool:
    bar = [p for _, p in stages if p is not None]
    return bar == sorted(bar)


def test_a_job_without_a_video_says_its_stages_in_order_and_no_mux(fleet: Fleet) -> None:
    stages = said(fleet, {"engine": "espeak"}, None)
    assert stages == BEFORE + AFTER


def test_a_job_with_a_video_says_mux_after_the_loudness(fleet: Fleet, clip: bytes) -> None:
    stages = said(fleet, {"engine": "espeak"}, clip)
    assert stages == [*BEFORE, ("mux", ENCODE_END), *AFTER]


def test_a_burn_in_says_its_encode_between_the_loudness_and_the_mux(
    fleet: Fleet, clip: bytes
) -> None:
    stages = said(fleet, {"engine": "espeak", "burn_in": True}, clip)
    encode = [(s, p) for s, p in stages if s.startswith("encode ")]
    assert encode and encode[-1] == ("encode 100%", ENCODE_END), stages
    assert all(p is not None and ENCODE_START <= p <= ENCODE_END for _, p in encode)
    rest = [one for one in stages if one not in encode]
    assert rest == [*BEFORE, ("mux", ENCODE_END), *AFTER]
    assert stages[len(BEFORE) : len(BEFORE) + len(encode)] == encode  # after the loudness
    assert rising(stages)

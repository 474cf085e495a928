"""The editor's timelines (exports: otio, fcpxml, fcp7, edl): every file read back by OTIO's
own readers puts the narration clips where the manifest says, to the frame; the subtitles are
markers with their text, layer and style; timeline-package.zip holds every file they name."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import opentimelineio as otio
import pytest
from lxml import etree

from service.adapters.files.timeline import write_exports
from service.domain.edit import Edit, export_rate, plan_edit
from service.domain.options import Export
from service.domain.subtitles import Cue
from tests.support.data import ROOT

READERS = {  # each file and OTIO's reader of it
    "timeline.otio": "otio_json",
    "timeline.fcpxml": "fcpx_xml",
    "timeline.xml": "fcp_xml",
    "timeline.edl": "cmx_3600",
}


DTDS = {  # checked in: OTIO's adapters ship none (docs/schemas/*.dtd say where they come from)
    "timeline.fcpxml": ROOT / "docs" / "schemas" / "fcpxml-1.8-subset.dtd",
    "timeline.xml": ROOT / "docs" / "schemas" / "xmeml-4-subset.dtd",
}


def valid(path: Path) -> bool:
    dtd = etree.DTD(str(DTDS[path.name]))
    ok = dtd.validate(etree.parse(str(path)))
    assert ok, dtd.error_log.filter_from_errors()
    return bool(ok)


def read_back(path: Path, fps: float) -> otio.schema.Timeline:
    adapter = READERS[path.name]
    extra = {"rate": fps} if adapter == "cmx_3600" else {}  # an EDL does not say its rate
    return otio.adapters.read_from_file(str(path), adapter_name=adapter, **extra)


def clips(tl: otio.schema.Timeline, prefix: str) -> list[tuple[str, int, int]]:
    """(media, start frame, frames) of every clip whose media path starts with ``prefix``."""
    found = [
        (c.media_reference.target_url, c.range_in_parent().start_time, c.duration())
        for track in tl.tracks
        for c in track.find_clips()
        if c.media_reference.target_url.startswith(prefix)
    ]
    return sorted((url, round(s.to_frames()), round(d.to_frames())) for url, s, d in found)


def expected(manifest: dict[str, Any], fps: float) -> list[tuple[str, int, int]]:
    """The manifest's slots in frames: each boundary the nearest frame to its time."""
    return [
        (
            f"segments/{s['index']:02d}.wav",
            round(s["start"] * fps),
            round(s["end"] * fps) - round(s["start"] * fps),
        )
        for s in manifest["segments"]
    ]


def make_music(path: Path) -> Path:
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=3",
         "-c:a", "libmp3lame", str(path)],
        check=True,
    )  # fmt: skip
    return path


@pytest.mark.parametrize("fps", [None, 30000 / 1001, 24000 / 1001, 25.0, 15.0])
def test_every_format_puts_the_slots_on_their_frames_at_the_videos_rate(
    tmp_path: Path, fps: float | None
) -> None:
    """Without a video the video track is a gap of the job's length at 30 fps; at NTSC rates
    every boundary is the nearest frame too (FCPXML at its project rate: 15 fps -> 30)."""
    cues = [Cue(1000, 2500, ("hello", "there"), 0), Cue(0, 4000, ("Title",), 3)]
    slots = [(0, 1999), (2600, 4321), (4321, 65537)]

    def edit_at(rate: float) -> Edit:
        return plan_edit("t", rate, slots, cues, 65537)

    kinds: list[Export] = ["otio", "fcpxml", "fcp7", "edl", "otio"]
    written = write_exports(edit_at, fps, kinds, tmp_path)
    assert written == ["timeline.otio", "timeline.fcpxml", "timeline.xml", "timeline.edl"]
    assert valid(tmp_path / "timeline.fcpxml") and valid(tmp_path / "timeline.xml")
    for kind, name in zip(kinds, written, strict=False):
        rate = export_rate(kind, fps)
        if kind == "fcpxml":  # a whole rate: 29.97 -> 30, 23.976 -> 24, 15 -> 30
            assert rate == (30 if fps in (None, 15.0) else round(fps or 30))
        else:
            assert rate == (fps or 30) or (kind != "otio" and fps == 15 and rate == 30)
        want = [
            (f"segments/{i:02d}.wav", round(a * rate / 1000), round(b * rate / 1000) - round(a * rate / 1000))
            for i, (a, b) in enumerate(slots, 1)
        ]  # fmt: skip
        assert clips(read_back(tmp_path / name, rate), "segments/") == want, name
    tl = read_back(tmp_path / "timeline.otio", 30)
    video = tl.video_tracks()[0]
    rate = fps or 30
    assert [type(i).__name__ for i in video] == ["Gap"]
    assert video.duration().to_frames() == round(65537 * rate / 1000)
    assert [(m.name, m.metadata["narrate"]["layer"]) for m in tl.tracks.markers] == [
        ("hello there", 0), ("Title", 3),
    ]  # fmt: skip
    assert tl.tracks.markers[0].metadata["narrate"]["text"] == "hello\nthere"


def test_the_checked_in_dtds_refuse_what_an_editor_would(tmp_path: Path) -> None:
    """Not vacuous: a marker without its text, a clip without a duration, a clip item outside a
    track are refused."""
    bad = {
        "timeline.fcpxml": '<fcpxml version="1.8"><resources><format id="r1"/></resources>'
        '<project><sequence format="r1"><spine><gap duration="1s"><marker start="0s"/></gap>'
        "</spine></sequence></project></fcpxml>",
        "timeline.xml": '<xmeml version="4"><sequence><media><video><clipitem/></video>'
        "</media></sequence></xmeml>",
    }
    for name, text in bad.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert not etree.DTD(str(DTDS[name])).validate(etree.parse(str(tmp_path / name))), name


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\x85", "\u2028", "\u2029", "\x1b"])
def test_a_title_carrying_a_line_break_writes_one_title_line_and_no_forged_event(
    tmp_path: Path, brk: str
) -> None:
    """The EDL writer sanitises what the door already refuses (a title from an older job,
    or any caller of the writer): OTIO writes ``TITLE:`` raw, so a break in it made an
    extra line, a forged ``FROM CLIP NAME`` or an EDL OTIO could no longer read."""
    forged = f"t{brk}099  AX       V     C        00:00:00:00 00:00:01:00{brk}* FROM CLIP NAME: x"
    slots = [(0, 1999), (2600, 4321)]

    def edit_at(rate: float) -> Edit:
        return plan_edit(forged, rate, slots, [], 4321)

    write_exports(edit_at, None, ["edl"], tmp_path)
    text = (tmp_path / "timeline.edl").read_text()
    assert text.count("TITLE:") == 1 and "\x85" not in text and "\u2028" not in text
    assert [line for line in text.splitlines() if line.startswith("TITLE:")] == [
        text.splitlines()[0]
    ]
    lines = text.splitlines()
    assert not [line for line in lines if line.startswith(("099", "* FROM CLIP NAME: x"))]
    assert clips(read_back(tmp_path / "timeline.edl", 30), "segments/") == [
        ("segments/01.wav", 0, 60), ("segments/02.wav", 78, 52),
    ]  # fmt: skip

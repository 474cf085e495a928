"""The editor's timelines (exports: otio, fcpxml, fcp7, edl): every file read back by OTIO's
own readers puts the narration clips where the manifest says, to the frame; the subtitles are
markers with their text, layer and style; timeline-package.zip holds every file they name.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/pipeline/test_timeline_export.py."""

from __future__ import annotations

import zipfile
from pathlib import Path

from service.pipeline.exports import SUBTITLES
from tests.support.data import ROOT, make_video
from tests.support.helpers import narrate, read_manifest
from tests.unit.pipeline.test_timeline_export import (
    DTDS,
    READERS,
    clips,
    expected,
    make_music,
    read_back,
    valid,
)


def test_every_export_reads_back_with_the_manifests_clips_to_the_frame(tmp_path: Path) -> None:
    fps = 25  # not the default 30: the rate comes from the video
    video = make_video(tmp_path / "v.mp4", 6, size="320x568", fps=fps)
    out = tmp_path / "out"
    proc = narrate(
        "render", str(ROOT / "examples" / "en-tests-lie.md"), "--out", str(out),
        "--engine", "espeak", "--video", str(video), "--extend-video", "--screen-text",
        "--music", str(make_music(tmp_path / "m.mp3")), "--exports", "otio,fcpxml,fcp7,edl",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    manifest = read_manifest(out)
    want = expected(manifest, fps)
    assert len(want) == 3 and want[-1][1] > 0
    for name in READERS:
        tl = read_back(out / name, fps)
        assert clips(tl, "segments/") == want, name
        if name != "timeline.edl":  # a CMX 3600 EDL is the one narration track
            assert clips(tl, "video") == [("video.mp4", 0, 6 * fps)], name
            # 3 s of music looped under 26 s: the file back to back, the last one cut.
            bed = clips(tl, "music")
            assert [(u, s) for u, s, _ in bed] == [("music.mp3", k * bed[0][2]) for k in range(9)]
            assert abs(bed[0][2] - 3 * fps) <= 1 and bed[-1][1] + bed[-1][2] == 26 * fps, name
    for path in (out / f"segments/{i:02d}.wav" for i in (1, 2, 3)):
        assert path.read_bytes()[:4] == b"RIFF"
    cues = [
        (round(c["start"] * fps), c["text"].replace("\n", " "), c["layer"])
        for c in manifest["cues"]
    ]
    tl = read_back(out / "timeline.otio", fps)
    markers = [(round(m.marked_range.start_time.to_frames()), m.name, m.metadata["narrate"]["layer"]) for m in tl.tracks.markers]  # fmt: skip
    assert sorted(markers) == sorted(cues) and {layer for _, _, layer in cues} >= {0, 1, 2, 3}
    styles = {m.metadata["narrate"]["layer"]: m.metadata["narrate"]["style"] for m in tl.tracks.markers}  # fmt: skip
    assert styles == {0: "Narration", 1: "Overlay", 2: "Screen", 3: "Title"}
    assert list(tl.tracks.markers[0].metadata["narrate"]["subtitles"]) == list(SUBTITLES)
    fcp7 = read_back(out / "timeline.xml", fps)
    assert sorted((round(m.marked_range.start_time.to_frames()), m.name) for m in fcp7.tracks.markers) == sorted(c[:2] for c in cues)  # fmt: skip
    music = next(c for c in tl.find_clips() if c.name == "music 1").metadata["narrate"]
    keyframes = [list(k) for k in music["keyframes"]]
    assert music["duck_db"] == 12.0 and len(music["under_speech_s"]) == 3
    assert keyframes[:3] == [[0.0, -8.0], [0.0, -8.0], [0.0, -20.0]]  # down under the first words
    for name in DTDS:
        assert valid(out / name), name
    with zipfile.ZipFile(out / "timeline-package.zip") as zf:
        names = set(zf.namelist())
        assert {*READERS, "subtitles.srt", "subtitles.ass", "video.mp4", "music.mp3"} <= names
        for name in READERS:
            zf.extract(name, tmp_path / "unzipped")
        for name in READERS:
            tl = read_back(tmp_path / "unzipped" / name, fps)
            for c in tl.find_clips():
                url = c.media_reference.target_url
                assert not url.startswith("/") and ".." not in url and url in names, (name, url)

"""One real render (narrate render in its own process, espeak-ng, ffmpeg, libass burn-in)
of a short bilingual script with a Hong Kong Traditional track burned in: every track is
written, timed as the Simplified one, its text OpenCC's conversion; the English track holds
the supplied translation and only it; the video carries the Traditional subtitles."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pysubs2
import pytest
import srt

from devtools.media import make_video
from service.adapters.text.hant import OpenccConverter
from tests.support.helpers import frame_at, narrate, read_manifest

SCRIPT = """\
  • 标题:双语字幕
[段 1 · 4 秒 冲突] 我们用网络下载软件，信息都在内存里。
译文: We download software over the network; the data sits in memory.

[段 2 · 3 秒 结果] 测试通过以后再优化。

字幕层叠加限定语:结果来自论文自报
限定语译文: Results as reported by the paper
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("tracks")
    (work / "script.md").write_text(SCRIPT, encoding="utf-8")
    video = make_video(work / "clip.mp4", 7.5, size="360x640", audio=False)
    got = narrate(
        "render", work / "script.md", "--out", work / "out", "--engine", "espeak",
        "--video", video, "--burn-in", "--traditional", "hk", "--burn-in-script", "hant",
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    return work / "out"


def _srt(path: Path) -> list[srt.Subtitle]:
    return list(srt.parse(path.read_text(encoding="utf-8")))


def test_every_track_is_written_and_the_manifest_says_so(out: Path) -> None:
    manifest: dict[str, Any] = read_manifest(out)  # validated against the published schema
    names = ["srt", "vtt", "ass", "zh-Hant.srt", "zh-Hant.vtt", "zh-Hant.ass", "en.srt", "en.vtt"]
    assert manifest["subtitle_tracks"] == [f"subtitles.{n}" for n in names]
    assert all((out / f"subtitles.{n}").is_file() for n in names)
    assert manifest["traditional"] == {"variant": "hk", "chosen_by": "options", "burned_in": True}
    assert manifest["translations"] == {"segments_without": [2], "qualifiers_without": []}
    translated = [c for c in manifest["cues"] if c["layer"] == 0 and "translation" in c]
    assert translated and all(c["end"] <= 4.0 for c in translated)  # segment 1's cues only


def test_the_traditional_track_is_the_simplified_one_converted_at_the_same_times(
    out: Path,
) -> None:
    simp, hant = _srt(out / "subtitles.srt"), _srt(out / "subtitles.zh-Hant.srt")
    assert [(s.start, s.end) for s in simp] == [(t.start, t.end) for t in hant]
    convert = OpenccConverter().convert
    assert [convert(s.content, "hk") for s in simp] == [t.content for t in hant]
    assert "軟件" in hant[0].content and "軟件" not in simp[0].content  # s2hk keeps 软件's word
    ass = pysubs2.load(str(out / "subtitles.zh-Hant.ass"))
    assert "Translation" in ass.styles
    # Hong Kong glyph forms: the Noto CJK face of the region (the Simplified track keeps SC).
    assert ass.styles["Narration"].fontname == "Noto Sans CJK HK"
    assert pysubs2.load(str(out / "subtitles.ass")).styles["Narration"].fontname == (
        "Noto Sans CJK SC"
    )
    assert ass.styles["Translation"].fontsize < ass.styles["Narration"].fontsize
    assert any("{\\rTranslation}We download" in e.text for e in ass.events)


def test_the_english_track_is_the_supplied_translation_by_english_rules(out: Path) -> None:
    english = _srt(out / "subtitles.en.srt")
    lines = [ln for e in english for ln in e.content.split("\n")]
    narration = [ln for ln in lines if not ln.startswith("{")]
    assert " ".join(narration) == "We download software over the network; the data sits in memory."
    assert all(len(ln) <= 42 for ln in narration)
    assert [ln for ln in lines if ln.startswith("{")] == ["{\\an8}Results as reported by the paper"]
    assert "WEBVTT" in (out / "subtitles.en.vtt").read_text(encoding="utf-8")


def test_the_video_carries_the_traditional_track_and_burns_it_in(out: Path) -> None:
    soft = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", out / "video.mp4", "-map", "0:s:0", "-f", "srt", "-"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    hant = _srt(out / "subtitles.zh-Hant.srt")
    shown = [s.content.removeprefix("{\\an8}") for s in hant]  # mov_text has no position tags
    assert [s.content for s in srt.parse(soft)] == shown
    first = hant[0]
    mid = (first.start + first.end).total_seconds() / 2
    picture = frame_at(out / "video.mp4", mid, (360, 640), gray=True)
    band = picture[480:580]  # the Chinese and the English under it, above the bottom margin
    assert (band > 200).sum() > 150  # white text drawn on the dark clip
    assert (picture[:150] > 200).sum() == 0  # nothing at the top yet (the qualifier comes later)

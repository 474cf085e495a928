"""Burned-in subtitles are libass's pictures laid on by one overlay (service/adapters/ffmpeg/burn.py):
every frame must look as ffmpeg's subtitles filter draws it, a cue on the very frame it
starts, and the cost is one blend of one box.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/adapters/test_burn.py."""

from __future__ import annotations

from pathlib import Path

from service.adapters.ffmpeg.burn import (
    canvas_listing,
    layers,
    listings,
    overlay_filters,
    prepare,
)
from service.config import Settings
from service.domain.style import StyleSpec, resolve
from service.domain.subtitles.cues import NARRATION, OVERLAY, SCREEN, TITLE, Cue
from service.domain.subtitles.karaoke import TimedWord
from service.domain.subtitles.writers import Canvas, write_ass
from tests.support.data import make_video
from tests.unit.adapters.test_burn import psnr


def test_every_frame_is_as_libass_draws_it(tmp_path: Path) -> None:
    fps, width, height = 30, 360, 640
    video = make_video(tmp_path / "clip.mp4", 6, size=f"{width}x{height}", audio=False)
    # All four layers, cues starting and ending on frames (as the pipeline times them) and
    # between frames, an overlay meeting a caption, narration chained cue to cue.
    cues = [
        Cue(0, 1000, ("标题卡：测试",), TITLE),
        Cue(0, 2000, ("代码 Agent 的 RL", "用测试当奖励"), NARRATION),
        Cue(2000, 3467, ("评分员对通过的轨迹排序",), NARRATION),
        Cue(3533, 5500, ("低排名降权",), NARRATION),
        Cue(500, 4210, ("限定语：仓库未明确",), OVERLAY),
        Cue(1000, 5000, ("风险卡", "两条限定语"), SCREEN),
    ]
    ass = tmp_path / "subtitles.ass"
    ass.write_text(write_ass(cues, Canvas(width, height)), encoding="utf-8")
    burn = prepare(ass, tmp_path / "canvas.rgb", width, height, Settings())
    assert burn.box is not None and burn.box.w * burn.box.h < width * height * 0.6
    listing = tmp_path / "canvas.txt"
    listing.write_text(canvas_listing(burn, None, None), encoding="utf-8")
    inputs = ["-i", str(video), "-f", "concat", "-safe", "0", "-i", str(listing)]
    # The reference: ffmpeg's subtitles filter, told each frame's time plus half a
    # millisecond, so that its truncation to whole ms never moves a cue off its first frame.
    libass = f"settb=1/1000000,setpts=PTS+500,subtitles=filename={ass},setpts=PTS-500"
    reference = f"[0:v]split[a][b];[a]{libass}[ref];"
    values = psnr(reference + overlay_filters(burn, 1, "[b]") + "[ov]", inputs, tmp_path / "p.log")
    worst = sorted(range(len(values)), key=values.__getitem__)[:5]
    assert len(values) == 6 * fps and min(values) > 50, [(i, values[i]) for i in worst]
    # And text is there: against the bare picture, frames under the cues differ.
    bare = "[0:v]split[ref][b];" + overlay_filters(burn, 1, "[b]") + "[ov]"
    plain = psnr(bare, inputs, tmp_path / "q.log")
    assert max(plain[: 5 * fps]) < 40 and plain[-1] == float("inf")


def test_word_by_word_narration_drawn_apart_is_as_libass_draws_the_whole(tmp_path: Path) -> None:
    """Pop captions (the narration's states apart from the title's, see burn.py): every frame
    as ffmpeg's subtitles filter draws the whole file, each step of each pop included."""
    fps, width, height = 30, 360, 640
    video = make_video(tmp_path / "clip.mp4", 3, size=f"{width}x{height}", audio=False)
    lines = ("代码 Agent 的 RL", "用测试当奖励")
    spoken = ["代码", "Agent", "的", "RL", "用", "测试", "当", "奖励"]
    at, words = 0, []
    for i, w in enumerate(spoken):  # onsets between frames and on them, one word shorter
        at = "".join(lines).replace(" ", "").index(w, at)
        on = 300 + 250 * i + (17 if i % 2 else 0)
        words.append(TimedWord(at, at + len(w), w, on, on + (90 if i == 3 else 250)))
    cues = [
        Cue(0, 2000, ("标题卡：测试",), TITLE),
        Cue(200, 2800, lines, NARRATION, words=tuple(words)),
    ]
    canvas = Canvas(width, height, style=resolve(None, StyleSpec(captions="pop")))
    ass = tmp_path / "subtitles.ass"
    ass.write_text(write_ass(cues, canvas), encoding="utf-8")
    burn = prepare(ass, tmp_path / "canvas.rgb", width, height, Settings())
    assert len(layers(burn)) == 2 and burn.under is not None and burn.under.box is not None
    inputs = ["-i", str(video)]
    for i, listed in enumerate(listings(burn, None, None)):
        (tmp_path / f"c{i}.txt").write_text(listed, encoding="utf-8")
        inputs += ["-f", "concat", "-safe", "0", "-i", str(tmp_path / f"c{i}.txt")]
    libass = f"settb=1/1000000,setpts=PTS+500,subtitles=filename={ass},setpts=PTS-500"
    reference = f"[0:v]split[a][b];[a]{libass}[ref];"
    values = psnr(reference + overlay_filters(burn, 1, "[b]") + "[ov]", inputs, tmp_path / "p.log")
    worst = sorted(range(len(values)), key=values.__getitem__)[:5]
    assert len(values) == 3 * fps and min(values) > 50, [(i, values[i]) for i in worst]

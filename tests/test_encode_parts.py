"""A burned-in picture is encoded in time parts at once (one single-threaded ffmpeg per core)
and joined by a stream copy: the joined file must be the one-pass encode, frame for frame."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.adapters.media import encode_video_args
from service.adapters.parts import TEXT_COST, encode_parts
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.ports import MuxRequest, VideoInfo
from tests.conftest import make_video
from tests.helpers import ffprobe, mux_request

CFR = VideoInfo("mov,mp4,m4a,3gp,3g2,mj2", 1080, 1920, 90.0, 30.0, "h264", True, True)


def request(info: VideoInfo = CFR, **kw: Any) -> MuxRequest:
    return mux_request(**{"info": info, "burn_in": True, **kw})


@pytest.mark.parametrize("fps", [30.0, 30000 / 1001, 25.0, 60.0])
def test_cuts_fall_half_a_frame_between_two_frames(fps: float) -> None:
    parts = encode_parts(request(replace(CFR, fps=fps)), 3)
    assert len(parts) == 3 and parts[0][0] is None and parts[-1][1] is None
    for (_, end), (start, _) in pairwise(parts):
        assert end == start
        assert end is not None and abs(end * fps % 1 - 0.5) < 1e-6


def test_parts_under_the_narration_are_shorter_so_that_all_end_together() -> None:
    # Subtitles over the first 60 s of 90: frames there cost 1 + TEXT_COST.
    (_, cut), _ = encode_parts(request(duck_intervals=((0.0, 30.0), (30.0, 60.0))), 2)
    assert cut is not None
    frames_before, total = cut * 30 + 0.5, 60 * 30 * (1 + TEXT_COST) + 30 * 30
    assert abs(frames_before * (1 + TEXT_COST) - total / 2) <= 1 + TEXT_COST
    # Soft subtitles burn nothing in: the frames weigh alike.
    soft = encode_parts(request(burn_in=False, extend_to=95.0, duck_intervals=((0.0, 60.0),)), 2)
    assert soft[0][1] == (1350 - 0.5) / 30


def test_a_file_that_cannot_be_cut_by_time_is_encoded_whole() -> None:
    assert encode_parts(request(replace(CFR, constant_rate=False)), 8) == [(None, None)]
    # Parts shorter than MIN_PART_SECONDS cost more than they save.
    assert len(encode_parts(request(replace(CFR, duration=25.0)), 8)) == 2
    assert encode_parts(request(replace(CFR, duration=15.0)), 8) == [(None, None)]


def test_only_the_last_part_freezes_the_last_frame() -> None:
    req = request(extend_to=95.0)
    (first, last) = encode_parts(req, 2)
    head = encode_video_args(req, Settings(), Path("/w/p0.mp4"), first, threads=1)
    tail = encode_video_args(req, Settings(), Path("/w/p1.mp4"), last, threads=1)
    head_graph = head[head.index("-filter_complex") + 1]
    tail_graph = tail[tail.index("-filter_complex") + 1]
    assert "-ss" not in head and head_graph.startswith("[0:v:0]trim=end=44.983333,subtitles=")
    assert "tpad" not in head_graph and "-t" not in head
    assert tail[tail.index("-ss") + 1] == "44.983333" and "-copyts" in tail
    assert "tpad=stop_mode=clone:stop_duration=5.000" in tail_graph
    assert tail_graph.endswith("setpts=PTS-STARTPTS[vout]")
    assert tail[tail.index("-frames:v") + 1] == "1500"  # 95 s in all: 2850 frames
    assert head.count("-threads") == tail.count("-threads") == 2  # decoder and encoder


SCRIPT = """\
  • 标题:分段编码

[段 1 · 8 秒 开场] 代码 Agent 的 RL 用测试当奖励,再叠 GRPO 做优化。

[段 2 · 8 秒 机制] 评分员对通过的轨迹排序;低排名降权,按比例缩放,保持优势总和不变。

[段 3 · 8 秒 结论] 这是值得先试的一步。
"""


def frame_psnr(a: Path, b: Path, log: Path) -> list[float]:
    subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(a), "-i", str(b), "-lavfi",
         f"[0:v][1:v]psnr=stats_file={log}", "-f", "null", "-"],
        check=True,
    )  # fmt: skip
    values = re.findall(r"psnr_avg:(\S+)", log.read_text())
    return [float("inf") if v == "inf" else float(v) for v in values]


@pytest.mark.integration
@pytest.mark.parametrize("seconds", [24.0, 21.0])  # 21: the video is frozen to 24 s
def test_a_picture_in_parts_is_the_one_pass_picture(tmp_path: Path, seconds: float) -> None:
    video = make_video(tmp_path / "clip.mp4", seconds, size="360x640")
    spec = parse_markdown(SCRIPT)
    options = RenderOptions(engine="espeak", burn_in=True, extend_video=True)
    outputs = {}
    for parts in (1, 2):
        settings = Settings(data_dir=tmp_path / f"data{parts}", encode_parts=parts)
        pipeline = wiring.pipeline(settings)
        plan = pipeline.plan(spec, options, video)
        assert plan.video is not None and plan.video.constant_rate
        pipeline.render(plan, tmp_path / f"out{parts}", video)
        outputs[parts] = tmp_path / f"out{parts}" / "video.mp4"
    one, two = (ffprobe(outputs[p])["streams"] for p in (1, 2))
    frames = [next(s for s in streams if s["codec_type"] == "video") for streams in (one, two)]
    assert frames[0]["nb_frames"] == frames[1]["nb_frames"] == "720"  # 24 s at 30 fps
    assert frames[0]["duration"] == frames[1]["duration"]
    # Each frame as the one-pass encode made it: a cue one frame early or late, or a frame
    # lost or doubled at the cut, is a frame with text against one without (< 30 dB).
    psnr = frame_psnr(outputs[1], outputs[2], tmp_path / "psnr.log")
    assert len(psnr) == 720 and min(psnr) > 40, min(psnr)
    left = [p for p in tmp_path.rglob("*.part*")]
    assert not left  # the parts and their listing are removed after the join

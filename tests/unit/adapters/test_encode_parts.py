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

from service.adapters.ffmpeg.media import encode_video_args
from service.adapters.ffmpeg.parts import Frames, Part, encode_parts, frames_done
from service.config import Settings
from service.ports import MuxRequest, VideoInfo
from tests.support.helpers import mux_request

CFR = VideoInfo("mov,mp4,m4a,3gp,3g2,mj2", 1080, 1920, 90.0, 30.0, "h264", True, True)


def request(info: VideoInfo = CFR, **kw: Any) -> MuxRequest:
    return mux_request(**{"info": info, "burn_in": True, **kw})


@pytest.mark.parametrize("fps", [30.0, 30000 / 1001, 25.0, 60.0])
def test_cuts_fall_half_a_frame_between_two_frames(fps: float) -> None:
    parts = encode_parts(request(replace(CFR, fps=fps)), 3)
    assert len(parts) == 3 and parts[0].first == 0 and parts[-1].end is None
    for a, b in pairwise(parts):
        assert a.end == b.first
        (_, end), (start, _) = a.times(fps), b.times(fps)
        assert end == start and end is not None and abs(end * fps % 1 - 0.5) < 1e-6


def test_parts_are_alike_and_the_frozen_end_belongs_to_the_last() -> None:
    parts = encode_parts(request(extend_to=95.0), 2)
    assert parts == [Part(0, 1350), Part(1350, None)]
    frames = Frames(request(extend_to=95.0))
    assert [frames.count(p) for p in parts] == [1350, 1500]  # 95 s in all: 2850 frames
    # Frames are shared out inside the file's own frames: the frozen end (after
    # frame 2700) cannot be sought into.
    assert frames.share(2000, None, 3) == [Part(2000, 2233), Part(2233, 2466), Part(2466, None)]
    assert frames.share(10, 13, 4) == [Part(10, 11), Part(11, 12), Part(12, 13)]
    assert frames.share(2750, None, 2) == [Part(2750, None)]  # from inside the frozen end: one part


def test_a_file_that_cannot_be_cut_by_time_is_encoded_whole() -> None:
    assert encode_parts(request(replace(CFR, constant_rate=False)), 8) == [Part(0)]
    # Parts shorter than MIN_PART_SECONDS cost more than they save.
    assert len(encode_parts(request(replace(CFR, duration=25.0)), 8)) == 2
    assert encode_parts(request(replace(CFR, duration=15.0)), 8) == [Part(0)]


def test_only_the_last_part_freezes_the_last_frame() -> None:
    req = request(extend_to=95.0)
    first, last = encode_parts(req, 2)
    head = encode_video_args(req, Settings(), Path("/w/p0.mp4"), first)
    tail = encode_video_args(req, Settings(), Path("/w/p1.mp4"), last)
    head_graph = head[head.index("-filter_complex") + 1]
    tail_graph = tail[tail.index("-filter_complex") + 1]
    assert "-ss" not in head and head_graph == "[0:v:0]trim=end=44.983333[vout]"
    assert "-t" not in head
    assert tail[tail.index("-ss") + 1] == "44.983333" and "-copyts" in tail
    assert tail_graph == "[0:v:0]tpad=stop_mode=clone:stop_duration=5.000,setpts=PTS-STARTPTS[vout]"
    assert tail[tail.index("-frames:v") + 1] == "1500"
    assert head.count("-threads") == tail.count("-threads") == 2  # decoder and encoder


def test_ffmpeg_progress_is_read_from_its_last_complete_report() -> None:
    report = b"frame=30\nfps=0.0\nprogress=continue\nframe=61\nfps=60\nprogress=continue\n"
    assert frames_done(report) == 61
    assert frames_done(report + b"frame=9") == 61  # a report still being written
    assert frames_done(b"") == frames_done(b"frame=12\n") == 0


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

"""A burned-in picture is encoded in time parts at once (one single-threaded ffmpeg per core)
and joined by a stream copy: the joined file must be the one-pass encode, frame for frame.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/adapters/test_encode_parts.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import wiring
from service.adapters import media
from service.adapters.media import FfmpegMedia
from service.adapters.parts import Part, PartsEncoding
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.ports import MuxRequest
from tests.support.data import make_video
from tests.support.helpers import ffprobe
from tests.unit.adapters.test_encode_parts import SCRIPT, frame_psnr


@pytest.mark.parametrize(
    ("seconds", "size", "uneven"),
    [
        (24.0, "360x640", False),
        (21.0, "360x640", False),  # the video is frozen to 24 s
        # Cut unevenly (3 s against 21 s): the short part ends long before the other, and
        # the join is still the one-pass picture; a second render is the same file, byte
        # for byte (before, the long part was stopped wherever it was when the short one
        # ended, and re-cut there: 26 identical jobs gave 13 different files).
        (24.0, "1080x1920", True),
    ],
)
def test_a_picture_in_parts_is_the_one_pass_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, size: str, uneven: bool
) -> None:
    video = make_video(tmp_path / "clip.mp4", seconds, size=size)
    spec = parse_markdown(SCRIPT)
    options = RenderOptions(engine="espeak", burn_in=True, extend_video=True)
    encodings: list[PartsEncoding] = []
    encode = FfmpegMedia.encode_video

    def recorded(self: FfmpegMedia, request: MuxRequest, output: Path) -> PartsEncoding | None:
        encoding = encode(self, request, output)
        assert encoding is not None  # a burned-in picture is always encoded
        encodings.append(encoding)
        return encoding

    monkeypatch.setattr(FfmpegMedia, "encode_video", recorded)
    outputs = {}
    for run, parts in enumerate((1, 2, 2) if uneven else (1, 2)):
        if uneven and parts == 2:
            monkeypatch.setattr(media, "encode_parts", lambda req, n: [Part(0, 90), Part(90)])
        settings = Settings(data_dir=tmp_path / f"data{run}", encode_parts=parts)
        pipeline = wiring.pipeline(settings)
        plan = pipeline.plan(spec, options, video)
        assert plan.video is not None and plan.video.constant_rate
        pipeline.render(plan, tmp_path / f"out{run}", video)
        outputs[run] = tmp_path / f"out{run}" / "video.mp4"
    assert [e.started for e in encodings] == [1, 2, 2][: len(outputs)]  # never re-cut
    if uneven:
        assert outputs[1].read_bytes() == outputs[2].read_bytes()
    one, two = (ffprobe(outputs[run])["streams"] for run in (0, 1))
    frames = [next(s for s in streams if s["codec_type"] == "video") for streams in (one, two)]
    assert frames[0]["nb_frames"] == frames[1]["nb_frames"] == "720"  # 24 s at 30 fps
    assert frames[0]["duration"] == frames[1]["duration"]
    # Each frame as the one-pass encode made it: a cue one frame early or late, or a frame
    # lost or doubled at a cut, is a frame with text against one without (< 30 dB).
    psnr = frame_psnr(outputs[0], outputs[1], tmp_path / "psnr.log")
    assert len(psnr) == 720 and min(psnr) > 40, min(psnr)
    left = [p.name for p in tmp_path.rglob("*") if p.parent.name == "work" or ".part" in p.name]
    assert not left  # parts, progress reports, listings and the canvas: all removed

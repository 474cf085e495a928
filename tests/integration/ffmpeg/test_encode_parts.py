"""A burned-in picture is encoded in time parts at once (one single-threaded ffmpeg per core)
and joined by a stream copy: the joined file must be the one-pass encode, frame for frame.

The tests here start processes or render through ffmpeg; the in-process ones are in
tests/unit/adapters/test_encode_parts.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service import wiring
from service.adapters.ffmpeg import media
from service.adapters.ffmpeg.media import FfmpegMedia
from service.adapters.ffmpeg.parts import Part, PartsEncoding, encode_parts
from service.config import Settings
from service.domain.script import parse_markdown
from service.domain.spec import RenderOptions
from service.ports import MuxRequest
from tests.support.data import make_video
from tests.support.helpers import ffprobe
from tests.unit.adapters.test_encode_parts import SCRIPT, frame_psnr

Cut = Callable[[MuxRequest, int], list[Part]]
FPS = 10  # a cut's frames are any rate's (the cut arithmetic per rate: the unit tests)


def _uneven(request: MuxRequest, n: int) -> list[Part]:
    return [Part(0, 3 * FPS), Part(3 * FPS)]  # 3 s against the rest


@pytest.mark.parametrize(
    ("seconds", "cuts"),
    [
        # Cut evenly, then unevenly twice: the short part ends long before the other, and the
        # join is still the one-pass picture; a second render is the same file, byte for byte
        # (before, the long part was stopped wherever it was when the short one ended, and
        # re-cut there: 26 identical jobs gave 13 different files). One render in one pass
        # serves both cuts; the frame size is not what the cuts depend on.
        (24.0, (encode_parts, _uneven, _uneven)),
        (21.0, (encode_parts,)),  # the video is frozen to 24 s
    ],
    ids=["even-and-uneven", "frozen-end"],
)
def test_a_picture_in_parts_is_the_one_pass_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, cuts: tuple[Cut, ...]
) -> None:
    video = make_video(tmp_path / "clip.mp4", seconds, size="360x640", fps=FPS)
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
    outputs = []
    for run, cut in enumerate((encode_parts, *cuts)):
        monkeypatch.setattr(media, "encode_parts", cut)
        settings = Settings(data_dir=tmp_path / f"data{run}", encode_parts=2 if run else 1)
        pipeline = wiring.pipeline(settings)
        plan = pipeline.door.plan(spec, options, video)
        assert plan.video is not None and plan.video.constant_rate
        pipeline.render(plan, tmp_path / f"out{run}", video)
        outputs.append(tmp_path / f"out{run}" / "video.mp4")
    assert [e.started for e in encodings] == [1, 2, 2, 2][: len(outputs)]  # never re-cut
    if len(outputs) == 4:
        assert outputs[2].read_bytes() == outputs[3].read_bytes()
    for joined in outputs[1:3]:
        assert_same_picture(outputs[0], joined, tmp_path / "psnr.log")
    left = [p.name for p in tmp_path.rglob("*") if p.parent.name == "work" or ".part" in p.name]
    assert not left  # parts, progress reports, listings and the canvas: all removed


def assert_same_picture(one_pass: Path, joined: Path, log: Path) -> None:
    one, two = (ffprobe(output)["streams"] for output in (one_pass, joined))
    frames = [next(s for s in streams if s["codec_type"] == "video") for streams in (one, two)]
    assert frames[0]["nb_frames"] == frames[1]["nb_frames"] == str(24 * FPS)  # 24 s
    assert frames[0]["duration"] == frames[1]["duration"]
    # Each frame as the one-pass encode made it: a cue one frame early or late, or a frame
    # lost or doubled at a cut, is a frame with text against one without (< 30 dB).
    psnr = frame_psnr(one_pass, joined, log)
    assert len(psnr) == 24 * FPS and min(psnr) > 40, min(psnr)

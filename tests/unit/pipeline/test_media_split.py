"""Burn-in without a second pass on the critical path: the picture is re-encoded by ffmpeg
(it needs only the subtitles) while the narration is mixed and normalised, and the mux
stream-copies that picture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.adapters.ffmpeg.burn import Box, Burn
from service.adapters.ffmpeg.media import FfmpegMedia, encode_video_args, mux_args
from service.adapters.ffmpeg.parts import PartsEncoding
from service.config import Settings
from service.ports import Check, MuxRequest
from tests.support.helpers import mux_request


def request(**kw: Any) -> MuxRequest:
    return mux_request(**{"burn_in": True, **kw})


def test_the_picture_encode_needs_only_video_and_subtitles() -> None:
    text = Burn(Path("/w/subtitles.ass"), Path("/w/c.rgb"), 1080, 1920, (0,), Box(0, 0, 2, 2))
    argv = encode_video_args(
        request(extend_to=12.5),
        Settings(),
        Path("/w/picture.mp4"),
        text=(text, (Path("/w/c.txt"),)),
    )
    inputs = [argv[i + 1] for i, a in enumerate(argv) if a == "-i"]
    assert inputs == ["/w/source.video", "/w/c.txt"]  # the canvas the subtitles are drawn on
    graph = argv[argv.index("-filter_complex") + 1]
    assert "subtitles=filename='/w/subtitles.ass'" in graph and "tpad" in graph
    assert argv[argv.index("-c:v") + 1] == "libx264" and "-an" in argv
    assert argv[argv.index("-t") + 1] == "12.500" and argv[-1] == "/w/picture.mp4"


def test_the_mux_copies_an_encoded_picture_and_takes_original_audio_from_the_source() -> None:
    req = request(original_audio="mix", encoded_video=Path("/w/picture.mp4"))
    argv = mux_args(req, Settings())
    inputs = [argv[i + 1] for i, a in enumerate(argv) if a == "-i"]
    assert inputs == [
        "/w/picture.mp4",
        "/w/narration.wav",
        "/w/subtitles.srt",
        "/w/source.video",
    ]
    assert argv[argv.index("-c:v") + 1] == "copy"
    graph = argv[argv.index("-filter_complex") + 1]
    assert "subtitles=" not in graph and "[3:a]" in graph and "[0:a]" not in graph


class Recording(FfmpegMedia):
    def __init__(self, settings: Settings, events: list[str]) -> None:
        super().__init__(settings)
        self.events = events

    def encode_video(self, request: MuxRequest, output: Path) -> PartsEncoding | None:
        running = super().encode_video(request, output)
        self.events.append("encode started" if running else "no encode")
        return running

    def mux(self, request: MuxRequest, check: Check | None = None) -> None:
        copied = [p.name for p in (request.encoded_video, request.encoded_audio) if p]
        self.events.append(f"mux copying {' + '.join(copied)}" if copied else "mux")
        super().mux(request, check)

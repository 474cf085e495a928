from __future__ import annotations

from pathlib import Path

import pytest

from service.adapters.ffmpeg.media import FfmpegMedia, mux_args
from service.adapters.ffmpeg.probe import ProbeOutput, parse_probe, probe_args
from service.adapters.process import run
from service.config import Settings
from service.domain.errors import MediaError, MediaInputError
from tests.support.data import make_video
from tests.support.helpers import mux_request


def test_soft_mux_copies_video_and_adds_aac_and_mov_text() -> None:
    argv = mux_args(mux_request(), Settings())
    assert argv.count("-protocol_whitelist") == 3
    assert argv[argv.index("-c:v") + 1] == "copy"
    assert argv[argv.index("-c:a") + 1] == "aac"
    assert argv[argv.index("-c:s") + 1] == "mov_text"
    assert "language=chi" in argv
    assert argv[argv.index("-t") + 1] == "10.000"


def test_the_mux_never_reencodes_a_picture_that_changes() -> None:
    # Burn-in and a frozen end are encode_video's (in parts, while the narration is mixed):
    # a mux asked to do it would encode in series, single-process.
    with pytest.raises(ValueError, match="encode it first"):
        mux_args(mux_request(burn_in=True, extend_to=12.5), Settings())


def test_mix_ducks_the_original_under_narration() -> None:
    argv = mux_args(mux_request(original_audio="mix", duck_intervals=((1.0, 3.0),)), Settings())
    graph = argv[argv.index("-filter_complex") + 1]
    assert "[0:a]" in graph and "amix" in graph and "volume=" in graph


def test_probe_args_whitelist_protocol_and_formats() -> None:
    argv = probe_args(Path("/w/x"), Settings())
    assert argv[argv.index("-protocol_whitelist") + 1] == "file"
    assert "-format_whitelist" in argv


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"format": {"duration": "5"}, "streams": [{"codec_type": "audio"}]}, "no video stream"),
        (
            {
                "format": {"duration": "5"},
                "streams": [{"codec_type": "video", "width": 30000, "height": 30000}],
            },
            "30000x30000",
        ),
        (
            {
                "format": {"duration": "36000"},
                "streams": [{"codec_type": "video", "width": 64, "height": 64}],
            },
            "36000 s",
        ),
        (
            {
                "format": {"duration": "5"},
                "streams": [
                    {"codec_type": "video", "width": 64, "height": 64, "avg_frame_rate": "1000/1"}
                ],
            },
            "1000 fps",
        ),
    ],
)
def test_probe_figures_are_checked_against_limits(data: ProbeOutput, needle: str) -> None:
    with pytest.raises(MediaInputError, match=needle):
        parse_probe(data, Settings(), "in.mp4")


def test_probe_rejects_a_text_file(tmp_path: Path) -> None:
    fake = tmp_path / "fake.mp4"
    fake.write_text("this is not a video\n")
    with pytest.raises(MediaInputError, match="not a readable video"):
        FfmpegMedia(Settings()).probe(fake)


def test_probe_reads_a_real_video(tmp_path: Path) -> None:
    info = FfmpegMedia(Settings()).probe(make_video(tmp_path / "v.mp4", 2, size="320x240"))
    assert (info.width, info.height, info.fps, info.has_audio) == (320, 240, 30.0, True)
    assert abs(info.duration - 2) < 0.1


def test_run_reports_exit_code_and_stderr() -> None:
    with pytest.raises(MediaError) as err:
        run(["ffmpeg", "-v", "error", "-i", "/nonexistent/x.mp4"], 10)
    assert err.value.returncode == 1 and "nonexistent" in err.value.stderr_tail


def test_run_kills_the_process_group_on_timeout() -> None:
    with pytest.raises(MediaError) as err:
        run(["sh", "-c", "sleep 30 & sleep 30"], 0.5)
    assert err.value.returncode is None

"""Every command narrate runs, compared whole (ffmpeg-python's habit): a changed flag, order or
binary shows here as a diff, not as a silent change to what ships."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from service.adapters.ffmpeg.burn import Box, Burn
from service.adapters.ffmpeg.media import (
    encode_video_args,
    join_args,
    mux_args,
    sound_args,
    stretch_args,
)
from service.adapters.ffmpeg.probe import probe_args
from service.adapters.process import NOT_FOUND, Running, run
from service.adapters.tts.edge import decode_args
from service.adapters.tts.espeak import phoneme_args, speak_args, version_args
from service.cli.stack import redis_argv, worker_argv
from service.config import Settings
from service.domain.errors import MediaError
from service.ports import VideoInfo
from tests.support.helpers import mux_request


def test_espeak_speaks_one_phrase_from_stdin_to_a_wav_on_stdout() -> None:
    assert speak_args("/opt/espeak-ng", "cmn-latn-pinyin", 210, ssml=False) == [
        "/opt/espeak-ng", "-v", "cmn-latn-pinyin", "-s", "210", "--stdout",
    ]  # fmt: skip
    assert speak_args("espeak-ng", "en-us+f3", 175, ssml=True) == [
        "espeak-ng", "-v", "en-us+f3", "-s", "175", "--stdout", "-m",
    ]  # fmt: skip


def test_espeak_phonemes_and_version() -> None:
    assert phoneme_args("espeak-ng", "en-us", ssml=True) == [
        "espeak-ng", "-v", "en-us", "-q", "-x", "-m",
    ]  # fmt: skip
    assert phoneme_args("espeak-ng", "cmn-latn-pinyin", ssml=False) == [
        "espeak-ng", "-v", "cmn-latn-pinyin", "-q", "-x",
    ]  # fmt: skip
    assert version_args("espeak-ng") == ["espeak-ng", "--version"]


def test_edge_mp3_is_decoded_by_the_configured_ffmpeg() -> None:
    assert decode_args("/usr/local/bin/ffmpeg") == [
        "/usr/local/bin/ffmpeg", "-v", "error", "-f", "mp3", "-i", "-",
        "-f", "s16le", "-ac", "1", "-ar", "24000", "-",
    ]  # fmt: skip


def test_embedded_redis_keeps_every_write() -> None:
    assert redis_argv(6399, Path("/data/redis")) == [
        "redis-server", "--port", "6399", "--bind", "127.0.0.1", "--dir", "/data/redis",
        "--appendonly", "yes", "--appendfsync", "always", "--maxmemory-policy", "noeviction",
        "--save", "", "--protected-mode", "yes",
    ]  # fmt: skip


def test_worker_process() -> None:
    assert worker_argv("worker2", 3) == [
        sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
        "--pool", "prefork", "--concurrency", "3", "-n", "worker2@%h",
        "-Q", "narrate", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
    ]  # fmt: skip


def test_run_feeds_stdin_and_returns_stdout() -> None:
    assert run(["tr", "a-z", "A-Z"], 10, stdin=b"narrate").stdout == b"NARRATE"


def test_run_names_a_program_that_cannot_be_started() -> None:
    with pytest.raises(MediaError) as err:
        run(["/nonexistent/espeak-ng", "--version"], 10)
    assert err.value.returncode == NOT_FOUND
    assert "/nonexistent/espeak-ng" in str(err.value)


def test_a_program_that_stops_reading_its_input_is_killed_at_the_deadline() -> None:
    running = Running(["sleep", "30"], stdin=b"")
    t = time.monotonic()
    with pytest.raises(MediaError) as err:
        running.feed(b"x" * (1 << 20), t + 0.5)  # more than a pipe holds
    assert err.value.returncode is None and "timed out" in str(err.value)
    assert time.monotonic() - t < 5 and running.proc.returncode is not None


# -- ffmpeg, ffprobe, rubberband: the binaries come from Settings ------------------------------
TOOLS = Settings(
    ffmpeg="/opt/ff/ffmpeg", ffprobe="/opt/ff/ffprobe", rubberband="/opt/rb/rubberband"
)
FORMATS = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"
INFO = VideoInfo(FORMATS, 1080, 1920, 10.0, 30.0, "h264", True)
SOFT = mux_request(video=Path("/w/in.mp4"), info=INFO)
INPUTS = [
    "-protocol_whitelist", "file", "-format_whitelist", FORMATS, "-i", "/w/in.mp4",
    "-protocol_whitelist", "file", "-f", "wav", "-i", "/w/narration.wav",
    "-protocol_whitelist", "file", "-f", "srt", "-i", "/w/subtitles.srt",
]  # fmt: skip
TAIL = [
    "-map", "0:v:0", "-c:v", "copy", "-map", "[aout]", "-c:a", "aac", "-aac_coder", "fast", "-b:a", "160k",
    "-map", "2:s:0", "-c:s", "mov_text",
    "-metadata:s:s:0", "language=chi", "-metadata:s:a:0", "language=chi",
    "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1",
]  # fmt: skip


def test_probe_reads_local_files_of_known_formats_only() -> None:
    assert probe_args(Path("/w/in.mp4"), TOOLS) == [
        "/opt/ff/ffprobe", "-v", "error", "-protocol_whitelist", "file",
        "-format_whitelist", FORMATS, "-show_format", "-show_streams", "-of", "json", "/w/in.mp4",
    ]  # fmt: skip


def test_stretch_uses_rubberband_r3() -> None:
    assert stretch_args(Path("/w/a.wav"), Path("/w/b.wav"), 1.05, TOOLS) == [
        "/opt/rb/rubberband", "-3", "-q", "-t", "1.050000", "/w/a.wav", "/w/b.wav",
    ]  # fmt: skip


def test_soft_mux_copies_the_picture_and_pads_the_narration() -> None:
    assert mux_args(SOFT, TOOLS) == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error", *INPUTS,
        "-filter_complex", "[1:a]apad=whole_dur=10.000[aout]", *TAIL,
        "-t", "10.000", "-movflags", "+faststart", "-f", "mp4", "/w/video.mp4",
    ]  # fmt: skip


def test_burn_in_encodes_the_picture_then_the_mux_copies_it() -> None:
    burn = replace(SOFT, burn_in=True, extend_to=12.5)
    text = Burn(
        Path("/w/subtitles.ass"),
        Path("/w/canvas.rgb"),
        1080,
        1920,
        (0, 900),
        Box(0, 1600, 1080, 120),
    )
    assert encode_video_args(burn, TOOLS, Path("/w/picture.mp4"), text=(text, (Path("/w/canvas.txt"),))) == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error",
        "-protocol_whitelist", "file", "-format_whitelist", FORMATS, "-i", "/w/in.mp4",
        "-itsoffset", "0.000000", "-protocol_whitelist", "file",
        "-f", "concat", "-safe", "0", "-i", "/w/canvas.txt",
        "-filter_complex",
        "[0:v:0]tpad=stop_mode=clone:stop_duration=2.500[main];"
        "[1:v]pad=1080:1920:0:0:black@0,"
        "subtitles=filename='/w/subtitles.ass':alpha=1,setpts=max(PTS-0.001/TB\\,0),"
        "crop=1080:120:0:1600,format=gbrap,unpremultiply=inplace=1[text];"
        "[main][text]overlay=0:1600:eof_action=repeat[vout]",
        "-map", "[vout]", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23",
        "-pix_fmt", "yuv420p", "-an", "-sn", "-dn",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
        "-map_metadata", "-1", "-t", "12.500", "-f", "mp4", "/w/picture.mp4",
    ]  # fmt: skip
    copied = mux_args(replace(burn, encoded_video=Path("/w/picture.mp4")), TOOLS)
    assert copied == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error",
        *[("/w/picture.mp4" if a == "/w/in.mp4" else a) for a in INPUTS],
        "-filter_complex", "[1:a]apad=whole_dur=12.500[aout]", *TAIL,
        "-t", "12.500", "-movflags", "+faststart", "-f", "mp4", "/w/video.mp4",
    ]  # fmt: skip


def test_the_sound_track_is_encoded_from_pcm_on_stdin_and_the_mux_copies_it() -> None:
    assert sound_args(SOFT, TOOLS, 24000, Path("/w/sound.m4a")) == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error", "-protocol_whitelist", "pipe",
        "-f", "s16le", "-ar", "24000", "-ac", "1", "-i", "pipe:0",
        "-af", "apad=whole_dur=10.000", "-c:a", "aac", "-aac_coder", "fast", "-b:a", "160k",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
        "-map_metadata", "-1", "-t", "10.000", "-f", "mp4", "/w/sound.m4a",
    ]  # fmt: skip
    copied = mux_args(replace(SOFT, encoded_audio=Path("/w/sound.m4a")), TOOLS)
    inputs = [copied[i + 1] for i, a in enumerate(copied) if a == "-i"]
    assert inputs == ["/w/in.mp4", "/w/sound.m4a", "/w/subtitles.srt"]
    assert "-filter_complex" not in copied and copied.count("copy") == 2  # picture, sound
    assert join_args(Path("/w/parts.txt"), Path("/w/picture.mp4"), TOOLS) == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error", "-protocol_whitelist", "file",
        "-f", "concat", "-safe", "0", "-i", "/w/parts.txt", "-c", "copy",
        "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
        "-map_metadata", "-1", "-f", "mp4", "/w/picture.mp4",
    ]  # fmt: skip


def test_mix_ducks_the_original_under_the_narration_with_ramps() -> None:
    mixed = replace(SOFT, original_audio="mix", duck_intervals=((1.0, 3.0),))
    duck = "1-0.8*min(1,min(1,max(0,(t-0.850)/0.15))*min(1,max(0,(3.150-t)/0.15)))"
    assert mux_args(mixed, TOOLS) == [
        "/opt/ff/ffmpeg", "-nostdin", "-y", "-v", "error", *INPUTS,
        "-filter_complex",
        "[1:a]apad=whole_dur=10.000[nar];[0:a]aresample=48000,aformat=channel_layouts=stereo,"
        f"volume='{duck}':eval=frame[orig];"
        "[nar]aresample=48000,aformat=channel_layouts=stereo[n48];"
        "[orig][n48]amix=inputs=2:duration=longest:normalize=0[aout]",
        *TAIL, "-t", "10.000", "-movflags", "+faststart", "-f", "mp4", "/w/video.mp4",
    ]  # fmt: skip

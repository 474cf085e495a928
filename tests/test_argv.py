"""Every command narrate runs, compared whole (ffmpeg-python's habit): a changed flag, order or
binary shows here as a diff, not as a silent change to what ships."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from service.adapters.process import NOT_FOUND, run
from service.adapters.tts.edge import decode_args
from service.adapters.tts.espeak import phoneme_args, speak_args, version_args
from service.domain.errors import MediaError
from service.stack import redis_argv, worker_argv


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

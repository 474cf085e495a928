"""ffmpeg encoding a speech response as it is spoken: PCM in on stdin (a thread feeds it
while the next sentence is synthesized), the encoded bytes out of stdout as ffmpeg writes
them. Its own process group, killed with the request if the client goes away or the
deadline passes, so no ffmpeg is left behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator

from service.domain.errors import MediaError

CHUNK = 8192  # bytes read from ffmpeg at a time: a first packet is sent as soon as it is made
# OpenAI's formats as ffmpeg outputs: opus in Ogg, aac as ADTS (both streamable).
CODECS = {
    "mp3": ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"],
    "opus": ["-c:a", "libopus", "-b:a", "48k", "-f", "ogg"],
    "aac": ["-c:a", "aac", "-b:a", "128k", "-f", "adts"],
    "flac": ["-c:a", "flac", "-f", "flac"],
    "wav": ["-c:a", "pcm_s16le", "-f", "wav"],  # on a pipe: the RIFF sizes say "unknown"
}


def encode_argv(ffmpeg: str, fmt: str, rate: int) -> list[str]:
    return [
        ffmpeg,
        *("-hide_banner", "-loglevel", "error", "-nostdin"),
        *("-f", "s16le", "-ar", str(rate), "-ac", "1", "-i", "pipe:0"),
        *("-flush_packets", "1"),
        *CODECS[fmt],
        "pipe:1",
    ]


class FfmpegStreamEncoder:
    def __init__(self, ffmpeg: str, timeout: float) -> None:
        self.ffmpeg = ffmpeg
        self.timeout = timeout  # wall-clock seconds one response's encode may take

    def stream(self, pcm: Iterator[bytes], fmt: str, rate: int) -> Iterator[bytes]:
        if fmt == "pcm":  # OpenAI's pcm is the raw samples: nothing to encode
            yield from pcm
            return
        argv = encode_argv(self.ffmpeg, fmt, rate)
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise MediaError(argv, 127, f"cannot run {argv[0]}: {exc}") from None
        failed: list[BaseException] = []
        feeder = threading.Thread(target=_feed, args=(proc, pcm, failed), daemon=True)
        feeder.start()
        # A read blocks until ffmpeg writes: the deadline is a timer that kills it.
        timer = threading.Timer(self.timeout, _kill, (proc,))
        timer.start()
        try:
            try:
                yield from _drain(proc, argv)
            except MediaError:
                feeder.join()
                if failed:  # the synthesis failed first: say that, not "ffmpeg was killed"
                    raise failed[0] from None
                raise
            feeder.join()
            if failed:
                raise failed[0]
        finally:
            timer.cancel()
            _end(proc)


def _feed(proc: subprocess.Popen[bytes], pcm: Iterator[bytes], failed: list[BaseException]) -> None:
    """Write every chunk (synthesizing as it goes), then close stdin: ffmpeg finishes."""
    assert proc.stdin is not None
    try:
        for data in pcm:
            proc.stdin.write(data)
            proc.stdin.flush()
    except BrokenPipeError:
        pass  # ffmpeg ended: its exit code tells why
    except BaseException as exc:  # a synthesis error: the response ends, ffmpeg with it
        failed.append(exc)
        _kill(proc)
    finally:
        close = getattr(pcm, "close", None)
        if close is not None:
            close()  # a generator holding a synthesis slot lets it go
        with contextlib.suppress(OSError):
            proc.stdin.close()


def _drain(proc: subprocess.Popen[bytes], argv: list[str]) -> Iterator[bytes]:
    assert proc.stdout is not None and proc.stderr is not None
    fd = proc.stdout.fileno()
    while True:
        data = os.read(fd, CHUNK)
        if not data:
            break
        yield data
    code = proc.wait()
    if code == -signal.SIGKILL:
        raise MediaError(
            argv, None, "the speech encode was stopped (timeout or a failed synthesis)"
        )
    if code != 0:
        tail = proc.stderr.read()[-2000:].decode(errors="replace")
        raise MediaError(argv, code, tail)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Whatever happened (a client gone mid-stream included): no ffmpeg left running."""
    if proc.poll() is None:
        _kill(proc)
    proc.wait()
    for f in (proc.stdout, proc.stderr):
        if f is not None:
            f.close()

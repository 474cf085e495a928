"""The one place narrate starts a program (ffmpeg, ffprobe, rubberband, espeak-ng): in its
own process group, with a wall-clock timeout that kills the whole group, and an error that
carries argv, exit code and the tail of stderr. Argument lists are built by pure functions
next to each adapter (tested whole, as data); this module only runs them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

from service.domain.errors import MediaError

NOT_FOUND = 127  # the shell's exit code for a program that cannot be run


def run(
    argv: list[str], timeout: float, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` (``stdin`` on its standard input, else nothing) and return its output.

    Raises MediaError on a non-zero exit (``returncode``), a timeout (``returncode`` None) or
    a program that cannot be started (``returncode`` 127)."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise MediaError(argv, NOT_FOUND, f"cannot run {argv[0]}: {exc}") from None
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = proc.communicate()
        raise MediaError(argv, None, err.decode(errors="replace")[-2000:]) from None
    except BaseException:
        _kill_group(proc.pid)
        proc.wait()
        raise
    if proc.returncode != 0:
        raise MediaError(argv, proc.returncode, err.decode(errors="replace")[-2000:])
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)

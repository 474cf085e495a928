"""The one place narrate starts a program (ffmpeg, ffprobe, rubberband, espeak-ng): in its
own process group, with a wall-clock timeout that kills the whole group, and an error that
carries argv, exit code and the tail of stderr. Argument lists are built by pure functions
next to each adapter (tested whole, as data); this module only runs them."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable

from service.domain.errors import MediaError

NOT_FOUND = 127  # the shell's exit code for a program that cannot be run
FFMPEG_STOPPED = 255  # ffmpeg's exit code after a signal asked it to end
CHECK_SECONDS = 0.25  # how often a long run asks whether its job still wants it
Check = Callable[[], None]  # raises to stop the run (its job was canceled)


class Running:
    """A program started in its own process group: ``wait`` for it (killing the group on
    timeout) or ``cancel`` it; either way no process is left behind. ``stdin`` is written to
    its standard input (otherwise it reads nothing).

    Raises MediaError on a non-zero exit (``returncode``), a timeout (``returncode`` None) or
    a program that cannot be started (``returncode`` 127)."""

    def __init__(
        self, argv: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.argv = argv
        self.stdin = stdin
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=env,
            )
        except OSError as exc:
            raise MediaError(argv, NOT_FOUND, f"cannot run {argv[0]}: {exc}") from None

    def feed(self, data: bytes, deadline: float) -> None:
        """Write to its standard input while it runs (started with ``stdin=b""``; ``wait``
        then closes it). A program that stops reading is killed at ``deadline``
        (``time.monotonic()``) with a timeout error, never waited on for ever."""
        assert self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        os.set_blocking(fd, False)
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                _kill_group(self.proc.pid)
                _, err = self.proc.communicate()
                raise MediaError(self.argv, None, err.decode(errors="replace")[-2000:])
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                return  # it has ended: ``wait`` says why

    def wait(
        self, timeout: float, check: Check | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Wait for the end; ``check`` is called every CHECK_SECONDS meanwhile and may raise
        (the job was canceled): the program is then killed and the error goes on."""
        proc = self.proc
        try:
            out, err = self._communicate(timeout, check)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, err = proc.communicate()
            raise MediaError(self.argv, None, err.decode(errors="replace")[-2000:]) from None
        except BaseException:
            self.cancel()
            raise
        if proc.returncode != 0:
            raise MediaError(self.argv, proc.returncode, err.decode(errors="replace")[-2000:])
        return subprocess.CompletedProcess(self.argv, proc.returncode, out, err)

    def _communicate(self, timeout: float, check: Check | None) -> tuple[bytes, bytes]:
        if check is None:
            return self.proc.communicate(self.stdin, timeout=timeout)
        deadline = time.monotonic() + timeout
        stdin = self.stdin
        while True:  # communicate may be called again after a timeout: no output is lost
            left = deadline - time.monotonic()
            try:
                return self.proc.communicate(stdin, timeout=max(0.0, min(CHECK_SECONDS, left)))
            except subprocess.TimeoutExpired:
                if left <= CHECK_SECONDS:
                    raise
                stdin = None  # written already by the first call
                check()

    def stop(self, timeout: float) -> None:
        """Ask ffmpeg to end early, as its ``q`` key does (SIGINT): it stops reading, encodes
        what it holds and closes its file properly, then exits 255 (0 if it was ending)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGINT)
        try:
            self.wait(timeout)
        except MediaError as exc:
            if exc.returncode != FFMPEG_STOPPED:
                raise

    def cancel(self) -> None:
        if self.proc.returncode is None:
            _kill_group(self.proc.pid)
            self.proc.communicate()


def run(
    argv: list[str],
    timeout: float,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    check: Check | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` to its end (see Running) and return its output; ``env`` replaces the
    environment (None: inherit it); ``check``: see ``Running.wait``."""
    return Running(argv, stdin, env).wait(timeout, check)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)

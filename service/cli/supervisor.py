"""`narrate worker`'s supervisor: the Celery worker runs as its child, started again when it
ends without being asked to (a crash of its main process, as kombu's restore once did, or a
kill), so a bare `narrate worker` keeps working like one under systemd, compose or a pod.
SIGTERM and SIGINT are passed on to the worker (its shutdown: the running step handed back)
and end the supervisor once the worker has left."""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
from collections.abc import Callable

log = logging.getLogger("narrate.worker")
BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0)  # seconds before each restart in a row


def child(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The worker in a process group of its own (a terminal's Ctrl-C reaches the supervisor
    alone, which passes it on once: twice would be Celery's "terminate now"), ended with the
    supervisor if that is killed."""
    from service.cli.stack import die_with_parent

    return subprocess.Popen(argv, env=env, process_group=0, preexec_fn=die_with_parent)


def supervise(
    argv: list[str],
    env: dict[str, str],
    spawn: Callable[..., subprocess.Popen[bytes]] = child,
    healthy_after: float = 60.0,
) -> int:
    """Run ``argv`` until a signal asks it to stop; its exit code then."""
    stopping = threading.Event()
    proc = spawn(argv, env=env)

    def forward(signum: int, frame: object) -> None:
        stopping.set()
        proc.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    restarts = 0
    while True:
        code = proc.wait()
        if stopping.is_set():
            return code
        pause = BACKOFF[min(restarts, len(BACKOFF) - 1)]
        log.warning("the worker ended unasked (exit %s): starting it again in %g s", code, pause)
        if stopping.wait(pause):
            return code
        proc = spawn(argv, env=env)
        # A worker that ran a while before it ended starts the back-off from the beginning.
        restarts = 0 if _ran_for(proc, healthy_after, stopping) else restarts + 1


def _ran_for(proc: subprocess.Popen[bytes], seconds: float, stopping: threading.Event) -> bool:
    """Whether ``proc`` is still running ``seconds`` after its start (or we are stopping)."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return True
    return stopping.is_set()

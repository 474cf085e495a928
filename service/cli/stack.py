"""Process management for `narrate serve`: an embedded Redis (AOF, noeviction) when no
NARRATE_REDIS_URL is set, N Celery worker processes, the reconciler, and the API. Children
never outlive serve: each runs in its own process group that stop() ends, and the kernel
signals them if serve itself is killed."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import redis

from service.config import Settings

log = logging.getLogger("narrate.serve")


def redis_argv(port: int, directory: Path) -> list[str]:
    # AOF fsynced on every write and noeviction: even a kill -9 loses no queued task or record
    # (job traffic is a few writes per segment, so "always" costs nothing that matters).
    return [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
        "--appendonly", "yes", "--appendfsync", "always", "--maxmemory-policy", "noeviction",
        "--save", "", "--protected-mode", "yes",
    ]  # fmt: skip


def wait_for_redis(url: str, timeout: float = 15.0) -> None:
    from service.adapters.redis import url as redis_url

    client = redis_url.client(url, 5.0, 1.0)
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# What a worker process runs with: SIGTERM (a `kill`, `docker stop`, a pod's stop) is Celery's
# cold shutdown, its soft shutdown first (worker_soft_shutdown_timeout), then the running task
# cancelled and its message handed back to the queue as the worker leaves, where the warm
# shutdown would wait for the task to end (a step held up, a pod's SIGKILL first). billiard
# reads it as it is imported: it must be in the process's environment.
WORKER_ENV = {"REMAP_SIGTERM": "SIGQUIT"}


def worker_argv(name: str, concurrency: int = 1, app: str = "workers.celery_app") -> list[str]:
    return [
        sys.executable, "-m", "celery", "-A", app, "worker",
        "--pool", "prefork", "--concurrency", str(concurrency), "-n", f"{name}@%h",
        "-Q", "narrate", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
    ]  # fmt: skip


PR_SET_PDEATHSIG = 1
try:  # loaded once here: the child, forked from a threaded process, only calls it
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: stop() still ends every process group
    _PRCTL = None


def die_with_parent() -> None:
    """In the child, before exec: the kernel sends SIGTERM if `narrate serve` dies, even by
    SIGKILL, so no worker is left running, reparented to PID 1."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)


class Stack:
    """Starts the processes, restarts a worker or the reconciler that dies, and ``stop``
    ends them all, each with its whole process group (a Celery worker's pool children
    too), in reverse order."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.procs: list[subprocess.Popen[bytes]] = []
        self.argv: dict[int, list[str]] = {}  # index in procs -> argv, for restarts
        self.env = dict(os.environ) | WORKER_ENV
        self.restarts = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv, process_group=0, preexec_fn=die_with_parent, **kwargs
        )  # own group: a terminal's Ctrl-C reaches serve only, and serve ends the group

    def start_redis(self) -> None:
        if self.settings.redis_url:
            return
        directory = self.settings.data_dir / "redis"
        directory.mkdir(parents=True, exist_ok=True)
        self.procs.append(
            self._spawn(
                redis_argv(self.settings.embedded_redis_port, directory), stdout=subprocess.DEVNULL
            )
        )
        self.env["NARRATE_REDIS_URL"] = self.settings.broker_url
        wait_for_redis(self.settings.broker_url)

    def _supervised(self, argv: list[str]) -> None:
        with self._lock:
            self.argv[len(self.procs)] = argv
            self.procs.append(self._spawn(argv, env=self.env))

    def start_workers(self, n: int) -> None:
        for i in range(n):
            self._supervised(worker_argv(f"worker{i + 1}"))

    def start_reconciler(self) -> None:
        self._supervised([sys.executable, "-m", "service.cli.main", "reconcile"])

    def supervise(self, interval: float = 1.0) -> threading.Thread:
        """A thread that restarts any worker or reconciler that exits, until ``stop``."""

        def loop() -> None:
            while not self._stopping.wait(interval):
                with self._lock:
                    for i, argv in self.argv.items():
                        proc = self.procs[i]
                        if proc.poll() is None or self._stopping.is_set():
                            continue
                        log.warning("%s exited with %s: restarting it", argv[-1], proc.returncode)
                        _end_group(proc.pid)  # its pool children, if any were left
                        self.procs[i] = self._spawn(argv, env=self.env)
                        self.restarts += 1

        thread = threading.Thread(target=loop, name="supervisor", daemon=True)
        thread.start()
        return thread

    def stop(self, timeout: float = 15.0) -> None:
        self._stopping.set()
        with self._lock:
            procs = list(reversed(self.procs))
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()  # Celery: warm shutdown, the running task finishes
        deadline = time.monotonic() + timeout
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            _end_group(proc.pid)


def _end_group(pgid: int) -> None:
    """SIGKILL whatever is left in a process group we started (an orphaned pool child)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)

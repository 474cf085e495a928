"""Process management for `narrate serve`: an embedded Redis (AOF, noeviction) when no
NARRATE_REDIS_URL is set, N Celery worker processes, and the API."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import redis

from service.config import Settings


def redis_argv(port: int, directory: Path) -> list[str]:
    # AOF fsynced on every write and noeviction: even a kill -9 loses no queued task or record
    # (job traffic is a few writes per segment, so "always" costs nothing that matters).
    return [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
        "--appendonly", "yes", "--appendfsync", "always", "--maxmemory-policy", "noeviction",
        "--save", "", "--protected-mode", "yes",
    ]  # fmt: skip


def wait_for_redis(url: str, timeout: float = 15.0) -> None:
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def worker_argv(name: str, concurrency: int = 1) -> list[str]:
    return [
        sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
        "--pool", "prefork", "--concurrency", str(concurrency), "-n", f"{name}@%h",
        "-Q", "narrate", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
    ]  # fmt: skip


class Stack:
    """Starts the processes; ``stop`` ends them in reverse order."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.procs: list[subprocess.Popen[bytes]] = []
        self.env = dict(os.environ)

    def start_redis(self) -> None:
        if self.settings.redis_url:
            return
        directory = self.settings.data_dir / "redis"
        directory.mkdir(parents=True, exist_ok=True)
        self.procs.append(
            subprocess.Popen(
                redis_argv(self.settings.embedded_redis_port, directory), stdout=subprocess.DEVNULL
            )
        )
        self.env["NARRATE_REDIS_URL"] = self.settings.broker_url
        wait_for_redis(self.settings.broker_url)

    def start_workers(self, n: int) -> None:
        for i in range(n):
            self.procs.append(subprocess.Popen(worker_argv(f"worker{i + 1}"), env=self.env))

    def start_reconciler(self) -> None:
        argv = [sys.executable, "-m", "service.cli", "reconcile"]
        self.procs.append(subprocess.Popen(argv, env=self.env))

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()

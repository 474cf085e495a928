"""The integration tier's shared fixtures."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of the module's own on a free port (the store contract tests' Redis)."""
    from devtools.stack import free_port
    from service.cli.stack import redis_argv, wait_for_redis

    port = free_port()
    proc = subprocess.Popen(
        redis_argv(port, tmp_path_factory.mktemp("redis")), stdout=subprocess.DEVNULL
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_for_redis(url)
        yield url
    finally:
        proc.kill()
        proc.wait()

"""A pack's files on disk, for every pack builder (zh-baker, kokoro, the recogniser): their
checksum, and a built or staged directory put in place of the old one."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def put_in_place(built: Path, dest: Path) -> None:
    """``built`` (a finished directory beside ``dest``) becomes ``dest``: a reader sees the
    old pack or the new one by a rename, never a half-copied one."""
    if dest.exists():
        shutil.rmtree(dest)
    built.rename(dest)


def cache_dir(env: str, name: str) -> Path:
    """Where built packs are kept: ``$env``, else <XDG cache>/narrate/``name`` (outside the
    repo; shared by clones and CI runs)."""
    given = os.environ.get(env)
    if given:
        return Path(given)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "narrate" / name


@contextmanager
def build_lock(cache: Path, name: str) -> Iterator[None]:
    """One build of pack ``name`` at a time per cache (a file lock): a concurrent caller
    waits, then finds it built."""
    import fcntl

    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextmanager
def staged(dest: Path, name: str) -> Iterator[Path]:
    """A fresh directory beside ``dest`` to fill; once the block ends without an error it
    becomes ``dest`` (put_in_place). It is removed whatever happens."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=dest.parent))
    staging.chmod(0o755)
    try:
        yield staging
        put_in_place(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

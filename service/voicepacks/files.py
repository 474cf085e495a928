"""A pack's files on disk, for every pack builder (zh-baker, kokoro, the recogniser): their
checksum, and a built or staged directory put in place of the old one."""

from __future__ import annotations

import hashlib
import shutil
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

"""Artifact storage: a local directory tree ``<root>/<tenant>/<job>/`` that a fleet on several
machines can share (NFS or similar). Every write is a rename, so readers never see half a file."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from service.domain.errors import InputError

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_FILE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$")


class LocalWorkspace:
    """A job's intermediate files in one local (or shared) directory: nothing to move."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def local(self, name: str) -> Path:
        return self.directory / _file(name)

    def keep(self, name: str) -> None:
        pass  # already where every step looks

    def fetch(self, name: str) -> Path:
        path = self.local(name)
        if not path.is_file():
            raise FileNotFoundError(2, "no such work file", name)
        return path

    def scratch(self) -> Path:
        return self.directory


class LocalStorage:
    def __init__(self, root: Path) -> None:
        self.root = root

    def job_dir(self, tenant: str, job_id: str) -> Path:
        # Both parts are checked so that no path built here can leave the root.
        if not (_NAME.match(tenant) and _NAME.match(job_id)):
            raise InputError(f"invalid tenant or job id: {tenant!r}/{job_id!r}")
        return self.root / tenant / job_id

    def workspace(self, tenant: str, job_id: str) -> LocalWorkspace:
        return LocalWorkspace(self.job_dir(tenant, job_id) / "work")

    def input_video(self, tenant: str, job_id: str) -> Path:
        return self.job_dir(tenant, job_id) / "input" / "source.video"

    def input_music(self, tenant: str, job_id: str) -> Path:
        return self.job_dir(tenant, job_id) / "input" / "source.music"

    def artifact(self, tenant: str, job_id: str, name: str) -> Path:
        return self.job_dir(tenant, job_id) / "artifacts" / name

    def staging(self, tenant: str, job_id: str) -> Path:
        base = self.job_dir(tenant, job_id)
        base.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".staging-", dir=base))

    def publish(self, tenant: str, job_id: str, staged: Path, names: tuple[str, ...]) -> list[str]:
        """Move finished artifacts into place, each by an atomic rename."""
        dest = self.job_dir(tenant, job_id) / "artifacts"
        dest.mkdir(parents=True, exist_ok=True)
        published = []
        for name in names:
            if (staged / name).exists():
                os.replace(staged / name, dest / name)
                published.append(name)
        return published

    def served(self, tenant: str, job_id: str, name: str) -> Path | None:
        """A published artifact as a regular file to send, or None (never a symlink)."""
        path = self.artifact(tenant, job_id, name)
        return path if path.is_file() and not path.is_symlink() else None

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None:
        """Keep an intermediate file (a finished segment) for the step that needs it next."""
        atomic_write(self.workspace(tenant, job_id).local(name), data)

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes:
        """An intermediate file; FileNotFoundError when it is missing."""
        return (self.job_dir(tenant, job_id) / "work" / _file(name)).read_bytes()

    def clear_work(self, tenant: str, job_id: str) -> None:
        """Remove the intermediate files and any staging left by a killed finalize."""
        base = self.job_dir(tenant, job_id)
        shutil.rmtree(base / "work", ignore_errors=True)
        for stale in base.glob(".staging-*"):
            shutil.rmtree(stale, ignore_errors=True)

    def delete(self, tenant: str, job_id: str) -> None:
        shutil.rmtree(self.job_dir(tenant, job_id), ignore_errors=True)


def _file(name: str) -> str:
    if not _FILE.match(name):
        raise InputError(f"invalid work file name: {name!r}")
    return name


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""Artifact storage: a local directory tree ``<root>/<tenant>/<job>/`` that a fleet on several
machines can share (NFS or similar). Every write is a rename, so readers never see half a file.
The object-store adapter (S3 and compatibles) is service/adapters/storage/s3.py."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from service.domain.errors import InputError
from service.domain.options import MASTER_NAME
from service.domain.takes import is_take
from service.ports import Stored

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_FILE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$")
INPUTS = ("video", "music")  # what a job may upload; stored as source.<kind>; and takes


def input_name(kind: str) -> str:
    if kind not in INPUTS and not is_take(kind):
        raise InputError(f"unknown input {kind!r} (one of {', '.join(INPUTS)})")
    return f"source.{kind}"


class LocalWorkspace:
    """A job's intermediate files in one local (or shared) directory: nothing to move."""

    def __init__(self, directory: Path, inputs: Path | None = None) -> None:
        self.directory = directory
        self.inputs = inputs  # where the job's uploads are (None: it has none)

    def local(self, name: str) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory / work_file(name)

    def keep(self, name: str) -> None:
        pass  # already where every step looks

    def fetch(self, name: str) -> Path:
        path = self.local(name)
        if not path.is_file():
            raise FileNotFoundError(2, "no such work file", name)
        return path

    def input(self, kind: str) -> Path:
        path = self.inputs / input_name(kind) if self.inputs is not None else None
        if path is None or not path.is_file():
            raise FileNotFoundError(2, "the job has no such input", kind)
        return path

    def scratch(self) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory

    def close(self) -> None:
        pass  # the work directory is shared by the job's steps; clear_work removes it


class LocalWork:
    """The LocalWork port: a workspace on this machine's disk for a job run in one process
    (``narrate render``), its inputs hard-linked in (copied where links are not to be had)."""

    def workspace(self, root: Path, inputs: Mapping[str, Path]) -> LocalWorkspace:
        folder = root / "input"
        folder.mkdir(parents=True, exist_ok=True)
        for kind, path in inputs.items():
            dest = folder / input_name(kind)
            try:
                dest.hardlink_to(path.resolve())
            except OSError:
                shutil.copyfile(path, dest)
        return LocalWorkspace(root / "work", folder)


class LocalIncoming:
    """An upload written in the job's input directory under a temporary name, renamed to
    ``path`` once whole: a request that ends any other way removes it, and a process killed
    mid-upload leaves only a dot-file that no job reads (the sweeper removes it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(f".{path.name}.partial")
        self.file: BinaryIO | None = None

    def write(self, chunk: bytes) -> None:
        if self.file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = self.partial.open("wb")
        self.file.write(chunk)

    def pending(self) -> bool:
        return False

    def flush(self) -> None:
        pass

    def commit(self) -> None:
        if self.file is None:  # an empty part: still an (empty) file, as before
            self.write(b"")
        self.close()
        os.replace(self.partial, self.path)

    def abort(self) -> None:
        with contextlib.suppress(OSError):  # a full disk fails the flush: unlink all the same
            self.close()
        self.partial.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self.file is not None and not self.file.closed:
            self.file.close()


class LocalArtifact:
    """A published artifact on the local disk: sent by the server as the file it is."""

    def __init__(self, path: Path) -> None:
        st = path.stat()
        self.path: Path | None = path
        self.size, self.modified = st.st_size, st.st_mtime
        self.etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}"'

    def open(self, start: int = 0) -> BinaryIO:
        assert self.path is not None
        f = self.path.open("rb")
        f.seek(start)
        return f

    def read(self, start: int, end: int) -> bytes:
        with self.open(start) as f:
            return f.read(max(0, end - start))

    def url(self, seconds: int) -> str | None:
        return None  # nothing but the API can reach the file


class LocalBlobs:
    """The TTS cache as files under ``root``, each written by atomic rename."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, name: str) -> bytes | None:
        try:
            return (self.root / name).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def put(self, name: str, data: bytes) -> None:
        atomic_write(self.root / name, data)


class LocalStorage:
    def __init__(self, root: Path, cache: Path | None = None) -> None:
        self.root = root
        self.cache_root = cache if cache is not None else root.parent / "cache"

    def cache(self) -> LocalBlobs:
        return LocalBlobs(self.cache_root)

    def identity(self) -> str:
        """A random id kept in the artifacts directory, made by whichever process comes first
        (O_EXCL): machines sharing the directory (one disk, NFS) read the same one, and
        separate data dirs have different ones."""
        path = self.root / ".storage-id"
        self.root.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w") as out:
                out.write(uuid.uuid4().hex)
        return "local:" + path.read_text().strip()

    def job_dir(self, tenant: str, job_id: str) -> Path:
        check_ids(tenant, job_id)  # so that no path built here can leave the root
        return self.root / tenant / job_id

    def workspace(self, tenant: str, job_id: str) -> LocalWorkspace:
        base = self.job_dir(tenant, job_id)
        return LocalWorkspace(base / "work", base / "input")

    def receive(self, tenant: str, job_id: str, kind: str) -> LocalIncoming:
        return LocalIncoming(self.job_dir(tenant, job_id) / "input" / input_name(kind))

    def copy_input(self, tenant: str, source_job: str, job_id: str, kind: str) -> bool:
        """The same bytes under the new job: a hard link, a copy where links fail."""
        src = self.job_dir(tenant, source_job) / "input" / input_name(kind)
        if not src.is_file():
            return False
        dest = self.job_dir(tenant, job_id) / "input" / input_name(kind)
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dest)
        except OSError:
            shutil.copyfile(src, dest)
        return True

    def input_video(self, tenant: str, job_id: str) -> Path:
        return self.job_dir(tenant, job_id) / "input" / "source.video"

    def input_music(self, tenant: str, job_id: str) -> Path:
        return self.job_dir(tenant, job_id) / "input" / "source.music"

    def artifact(self, tenant: str, job_id: str, name: str) -> Path:
        return self.job_dir(tenant, job_id) / "artifacts" / artifact_file(name)

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
            if (staged / artifact_file(name)).exists():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)  # segments/, masters/
                os.replace(staged / name, dest / name)
                published.append(name)
        return published

    def served(self, tenant: str, job_id: str, name: str) -> LocalArtifact | None:
        """A published artifact as a regular file to send, or None (never a symlink)."""
        path = self.artifact(tenant, job_id, name)
        return LocalArtifact(path) if path.is_file() and not path.is_symlink() else None

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None:
        """Keep an intermediate file (a finished segment) for the step that needs it next."""
        atomic_write(self.workspace(tenant, job_id).local(name), data)

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes:
        """An intermediate file; FileNotFoundError when it is missing."""
        return (self.job_dir(tenant, job_id) / "work" / work_file(name)).read_bytes()

    def clear_work(self, tenant: str, job_id: str) -> None:
        """Remove the intermediate files and any staging left by a killed finalize."""
        base = self.job_dir(tenant, job_id)
        shutil.rmtree(base / "work", ignore_errors=True)
        for stale in base.glob(".staging-*"):
            shutil.rmtree(stale, ignore_errors=True)

    def delete(self, tenant: str, job_id: str) -> None:
        shutil.rmtree(self.job_dir(tenant, job_id), ignore_errors=True)

    def stored(self) -> Iterator[Stored]:
        """Every job directory: its bytes and when anything in it last changed."""
        for tenant in sorted(p for p in self.root.glob("*") if p.is_dir()):
            for job in sorted(p for p in tenant.iterdir() if p.is_dir()):
                if is_id(tenant.name) and is_id(job.name):
                    yield _measure(tenant.name, job.name, job)


def _measure(tenant: str, job_id: str, directory: Path) -> Stored:
    size, modified = 0, directory.stat().st_mtime
    for path in directory.rglob("*"):
        with contextlib.suppress(FileNotFoundError):  # removed meanwhile
            st = path.lstat()
            modified = max(modified, st.st_mtime)
            size += st.st_size if path.is_file() else 0
    return Stored(tenant, job_id, size, modified)


def is_id(name: str) -> bool:
    """A tenant or job id (what a storage path or key may be made of)."""
    return bool(_NAME.match(name))


def check_ids(tenant: str, job_id: str) -> None:
    if not (_NAME.match(tenant) and _NAME.match(job_id)):
        raise InputError(f"invalid tenant or job id: {tenant!r}/{job_id!r}")


def work_file(name: str) -> str:
    if not _FILE.match(name):
        raise InputError(f"invalid work file name: {name!r}")
    return name


def artifact_file(name: str) -> str:
    """An artifact's name: a file name, or one under segments/ or masters/<name>/ (nothing
    else leaves the job's artifacts directory or key prefix)."""
    head, _, tail = name.rpartition("/")
    top, _, master = head.partition("/")
    folder = head in ("", "segments") or (top == "masters" and MASTER_NAME.fullmatch(master))
    if not folder or not _FILE.match(tail):
        raise InputError(f"invalid artifact name: {name!r}")
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

"""Where a job's bytes live: uploads, work files, the TTS cache, artifacts."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol


class Workspace(Protocol):
    """A job's intermediate files as one machine sees them. Tools (ffmpeg, rubberband, the
    WAV writer) need local paths: ``local`` is where to write or read a file on this machine,
    ``keep`` hands a written file to the job's other steps (which may run on another machine),
    ``fetch`` brings a kept file here, ``input`` brings the job's upload here. On a shared
    directory tree these are all one path; an object store uploads on ``keep`` and downloads
    on ``fetch``/``input`` into a scratch directory that ``close`` removes."""

    def local(self, name: str) -> Path: ...

    def keep(self, name: str) -> None: ...

    def fetch(self, name: str) -> Path: ...

    def input(self, kind: str) -> Path:
        """The job's uploaded ``video``, ``music`` or recorded take (``take``, ``take-N``) as
        a local file; FileNotFoundError if the job has none."""
        ...

    def scratch(self) -> Path:
        """A local directory for temporary files (removed by ``close`` or ``clear_work``)."""
        ...

    def close(self) -> None:
        """Drop this machine's copies (what was kept stays kept)."""
        ...


class Incoming(Protocol):
    """An upload arriving in pieces (a multipart request's file part). ``write`` is cheap (the
    event loop calls it); ``flush`` moves what is ``pending`` to the store (blocking: run it in
    a thread); ``commit`` makes the upload the job's input, ``abort`` leaves nothing of it.
    ``path`` is a local file holding the bytes so far, for the checks at the door (ffprobe)."""

    path: Path

    def write(self, chunk: bytes) -> None: ...

    def pending(self) -> bool: ...

    def flush(self) -> None: ...

    def commit(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None:
        """Remove the local copy, if it is not the stored input itself."""
        ...


class Artifact(Protocol):
    """A published artifact to serve: its size, validators and bytes."""

    size: int
    etag: str  # a quoted entity tag
    modified: float  # seconds since the epoch
    path: Path | None  # a local file the server may send itself (None: read through ``open``)

    def open(self, start: int = 0) -> BinaryIO:
        """The bytes from ``start`` to the end, as a stream to read and close."""
        ...

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end)."""
        ...

    def url(self, seconds: int) -> str | None:
        """A short-lived URL the client may fetch the bytes from itself (None: not offered)."""
        ...


class Blobs(Protocol):
    """Small named values shared by the fleet (the TTS cache); each put is atomic."""

    def get(self, name: str) -> bytes | None: ...

    def put(self, name: str, data: bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class Stored:
    """What storage holds for one job id (its record may be gone): for retention."""

    tenant: str
    job_id: str
    size: int  # bytes
    modified: float  # when anything of it last changed (seconds since the epoch)


class JobFiles(Protocol):
    """A job's files on their way: its uploads, its work files between steps, and everything
    kept of it (for retention). Nothing here is a path another machine could be expected to
    see."""

    def workspace(self, tenant: str, job_id: str) -> Workspace: ...

    def receive(self, tenant: str, job_id: str, kind: str) -> Incoming:
        """Start taking the job's ``video``, ``music`` or take (``take``, ``take-N``) upload."""
        ...

    def copy_input(self, tenant: str, source_job: str, job_id: str, kind: str) -> bool:
        """Give ``job_id`` the input of ``source_job`` (a re-render); False if it is gone."""
        ...

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None: ...

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes: ...

    def clear_work(self, tenant: str, job_id: str) -> None: ...

    def delete(self, tenant: str, job_id: str) -> None: ...

    def stored(self) -> Iterator[Stored]:
        """Every job id that has anything in storage (uploads, work files, artifacts)."""
        ...


class Artifacts(Protocol):
    """What the jobs publish, where the API serves it from, and the fleet's shared cache."""

    def staging(self, tenant: str, job_id: str) -> Path:
        """A local directory for finalize to write the artifacts into."""
        ...

    def publish(
        self, tenant: str, job_id: str, staged: Path, names: tuple[str, ...]
    ) -> list[str]: ...

    def served(self, tenant: str, job_id: str, name: str) -> Artifact | None: ...

    def identity(self) -> str:
        """The same on every machine that sees the same artifacts, different otherwise: the
        API checks its workers publish where it serves from (/readyz)."""
        ...

    def cache(self) -> Blobs:
        """The TTS cache, shared by every worker."""
        ...

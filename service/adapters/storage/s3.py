"""Object storage (S3, MinIO, Ceph, R2...): ``NARRATE_STORAGE_URL=s3://bucket/prefix``.

A job is the keys ``<prefix><tenant>/<job>/`` + ``input/source.<kind>`` (the uploads),
``work/<name>`` (segment audio and results, removed when the job ends) and
``artifacts/<name>``; the TTS cache is ``<prefix>cache/``. Tools get local files in a
per-step scratch directory under ``<data_dir>/scratch`` that the step removes, so no machine
relies on another's disk. Every object appears whole or not at all (a put is atomic; a
multipart upload is completed only once every part is in, aborted otherwise)."""

from __future__ import annotations

import contextlib
import mimetypes
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TypedDict

from service.adapters.storage.local import artifact_file, check_ids, input_name, is_id, work_file
from service.adapters.storage.s3client import HeadObject, S3Objects, translated
from service.ports import Stored

MANIFEST = "manifest.json"  # published last: a reader that sees it sees the whole set


class S3Workspace:
    """A step's view of a job's files: written and fetched in a scratch directory of its own,
    kept in the store."""

    def __init__(self, objects: S3Objects, base: str, directory: Path) -> None:
        self.objects, self.base, self.directory = objects, base, directory

    def local(self, name: str) -> Path:
        return self.directory / work_file(name)

    def keep(self, name: str) -> None:
        self.objects.put_file(self.base + "work/" + work_file(name), self.local(name))

    def fetch(self, name: str) -> Path:
        path = self.local(name)
        if not path.is_file():  # written or fetched by this step already: the same bytes
            self.objects.get_file(self.base + "work/" + name, path)
        return path

    def input(self, kind: str) -> Path:
        path = self.directory / input_name(kind)
        if not path.is_file():
            self.objects.get_file(self.base + "input/" + input_name(kind), path)
        return path

    def scratch(self) -> Path:
        return self.directory

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


class CompletedPart(TypedDict):
    """One part as boto3's complete_multipart_upload takes it (MultipartUpload's Parts)."""

    PartNumber: int
    ETag: str


class S3Incoming:
    """An upload streamed into a multipart upload, part by part (memory: one part). A local
    copy (``path``) is written alongside for the checks at the door; ``close`` removes it."""

    def __init__(self, objects: S3Objects, key: str, path: Path) -> None:
        self.objects, self.key, self.path = objects, key, path
        self.part_size = max(5 << 20, objects.settings.s3_part_size)
        self.buffer = bytearray()
        self.file: BinaryIO | None = None
        self.upload_id: str | None = None
        self.parts: list[CompletedPart] = []

    def write(self, chunk: bytes) -> None:
        if self.file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = self.path.open("wb")
        self.file.write(chunk)
        self.buffer.extend(chunk)

    def pending(self) -> bool:
        return len(self.buffer) >= self.part_size

    def flush(self) -> None:
        while len(self.buffer) >= self.part_size:
            self._send(bytes(self.buffer[: self.part_size]))
            del self.buffer[: self.part_size]

    def _send(self, data: bytes) -> None:
        client, bucket = self.objects.client, self.objects.bucket
        with translated("upload", self.key):
            if self.upload_id is None:
                up = client.create_multipart_upload(Bucket=bucket, Key=self.key)
                self.upload_id = up["UploadId"]
            n = len(self.parts) + 1
            r = client.upload_part(
                Bucket=bucket, Key=self.key, UploadId=self.upload_id, PartNumber=n, Body=data
            )
        self.parts.append({"PartNumber": n, "ETag": r["ETag"]})
        self.objects.traffic.count(put=len(data))

    def commit(self) -> None:
        if self.file is not None:
            self.file.close()
        if self.upload_id is None:  # under one part: a single atomic put
            self.objects.put_bytes(self.key, bytes(self.buffer))
            self.buffer.clear()
            return
        try:
            if self.buffer:
                self._send(bytes(self.buffer))  # the last part may be short
                self.buffer.clear()
            with translated("upload", self.key):
                self.objects.client.complete_multipart_upload(
                    Bucket=self.objects.bucket,
                    Key=self.key,
                    UploadId=self.upload_id,
                    MultipartUpload={"Parts": self.parts},
                )
            self.upload_id = None
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Nothing of the upload stays: its parts are dropped (the key never appeared)."""
        self.buffer.clear()
        if self.upload_id is not None:
            upload_id, self.upload_id = self.upload_id, None
            with translated("abort", self.key):
                self.objects.client.abort_multipart_upload(
                    Bucket=self.objects.bucket, Key=self.key, UploadId=upload_id
                )
        self.close()

    def close(self) -> None:
        if self.file is not None and not self.file.closed:
            with contextlib.suppress(OSError):  # a full disk: the copy goes all the same
                self.file.close()
        shutil.rmtree(self.path.parent, ignore_errors=True)  # the upload's own scratch dir


class _Counted:
    """A response body that counts what is read of it."""

    def __init__(self, body: Any, objects: S3Objects) -> None:
        self.body, self.objects = body, objects

    def read(self, n: int = -1) -> bytes:
        data: bytes = self.body.read(n if n >= 0 else None)
        self.objects.traffic.count(get=len(data))
        return data

    def close(self) -> None:
        self.body.close()

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class S3Artifact:
    """A published artifact in the store: streamed through the API, or a presigned URL."""

    path: Path | None = None

    def __init__(self, objects: S3Objects, key: str, head: HeadObject) -> None:
        self.objects, self.key = objects, key
        self.size = int(head["ContentLength"])
        self.etag = str(head["ETag"])
        self.modified = head["LastModified"].timestamp()

    def open(self, start: int = 0) -> BinaryIO:
        extra = {"Range": f"bytes={start}-"} if start else {}
        with translated("get", self.key):
            r = self.objects.client.get_object(
                Bucket=self.objects.bucket, Key=self.key, IfMatch=self.etag, **extra
            )
        return _Counted(r["Body"], self.objects)  # type: ignore[return-value]

    def read(self, start: int, end: int) -> bytes:
        if end <= start:
            return b""
        return self.objects.get_bytes(self.key, f"bytes={start}-{end - 1}")

    def url(self, seconds: int) -> str | None:
        return self.objects.presign(self.key, seconds, self.key.rsplit("/", 1)[-1])


class S3Blobs:
    """The TTS cache in the store, shared by every worker."""

    def __init__(self, objects: S3Objects, prefix: str) -> None:
        self.objects, self.prefix = objects, prefix

    def get(self, name: str) -> bytes | None:
        try:
            return self.objects.get_bytes(self.prefix + name)
        except FileNotFoundError:
            return None

    def put(self, name: str, data: bytes) -> None:
        self.objects.put_bytes(self.prefix + name, data)


class S3Storage:
    def __init__(self, objects: S3Objects, prefix: str, scratch: Path) -> None:
        self.objects, self.prefix, self.scratch_root = objects, prefix, scratch

    def identity(self) -> str:
        # Not the endpoint: machines may reach one server by different names.
        return f"s3:{self.objects.bucket}/{self.prefix}"

    def base(self, tenant: str, job_id: str) -> str:
        check_ids(tenant, job_id)  # no key built here leaves the job's prefix
        return f"{self.prefix}{tenant}/{job_id}/"

    def _scratch(self, tenant: str, job_id: str, what: str) -> Path:
        self.scratch_root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{tenant}.{job_id}.{what}-", dir=self.scratch_root))

    def cache(self) -> S3Blobs:
        return S3Blobs(self.objects, self.prefix + "cache/")

    def workspace(self, tenant: str, job_id: str) -> S3Workspace:
        base = self.base(tenant, job_id)
        return S3Workspace(self.objects, base, self._scratch(tenant, job_id, "work"))

    def receive(self, tenant: str, job_id: str, kind: str) -> S3Incoming:
        key = self.base(tenant, job_id) + "input/" + input_name(kind)
        return S3Incoming(self.objects, key, self._scratch(tenant, job_id, "upload") / kind)

    def copy_input(self, tenant: str, source_job: str, job_id: str, kind: str) -> bool:
        src = self.base(tenant, source_job) + "input/" + input_name(kind)
        if self.objects.head(src) is None:
            return False
        self.objects.copy(src, self.base(tenant, job_id) + "input/" + input_name(kind))
        return True

    def staging(self, tenant: str, job_id: str) -> Path:
        return self._scratch(tenant, job_id, "staging")

    def publish(self, tenant: str, job_id: str, staged: Path, names: tuple[str, ...]) -> list[str]:
        """Upload the finished artifacts, the manifest last. A finalize killed half way
        published nothing the API serves: the job lists its artifacts only once this returns."""
        base = self.base(tenant, job_id) + "artifacts/"
        present = [n for n in names if (staged / artifact_file(n)).is_file()]
        for name in sorted(present, key=lambda n: n == MANIFEST):
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            self.objects.put_file(base + name, staged / name, kind)
        return present

    def served(self, tenant: str, job_id: str, name: str) -> S3Artifact | None:
        key = self.base(tenant, job_id) + "artifacts/" + artifact_file(name)
        head = self.objects.head(key)
        return S3Artifact(self.objects, key, head) if head is not None else None

    def put_work(self, tenant: str, job_id: str, name: str, data: bytes) -> None:
        self.objects.put_bytes(self.base(tenant, job_id) + "work/" + work_file(name), data)

    def get_work(self, tenant: str, job_id: str, name: str) -> bytes:
        return self.objects.get_bytes(self.base(tenant, job_id) + "work/" + work_file(name))

    def clear_work(self, tenant: str, job_id: str) -> None:
        """The job's work objects, and this machine's scratch left by a killed step."""
        for stale in self.scratch_root.glob(f"{tenant}.{job_id}.*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.objects.delete_prefix(self.base(tenant, job_id) + "work/")

    def delete(self, tenant: str, job_id: str) -> None:
        for stale in self.scratch_root.glob(f"{tenant}.{job_id}.*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.objects.delete_prefix(self.base(tenant, job_id))

    def stored(self) -> Iterator[Stored]:
        """Every job prefix in the store (the cache aside), and this machine's scratch
        directories: bytes, and when anything of it last changed."""
        found: dict[tuple[str, str], tuple[int, float]] = {}

        def add(tenant: str, job_id: str, size: int, modified: float) -> None:
            if is_id(tenant) and is_id(job_id):
                had = found.get((tenant, job_id), (0, 0.0))
                found[tenant, job_id] = (had[0] + size, max(had[1], modified))

        for key, size, modified in self.objects.listing(self.prefix):
            parts = key[len(self.prefix) :].split("/")
            if len(parts) > 2 and parts[0] != "cache":
                add(parts[0], parts[1], size, modified)
        for stale in self.scratch_root.glob("*.*.*-*"):
            tenant, job_id, _ = stale.name.split(".", 2)
            with contextlib.suppress(FileNotFoundError):
                add(tenant, job_id, 0, stale.stat().st_mtime)
        for (tenant, job_id), (size, modified) in sorted(found.items()):
            yield Stored(tenant, job_id, size, modified)

"""The S3 protocol as object storage needs it: one boto3 client (retries with backoff on 5xx,
throttling and dropped connections, by botocore's standard or adaptive mode), every call's
failure turned into FileNotFoundError (no such key) or StorageUnavailable, and a count of
the bytes that go each way (what bench/storage.py reports)."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlsplit

from service.config import Settings
from service.domain.errors import InputError, StorageUnavailable

log = logging.getLogger("narrate.storage.s3")

MISSING = {"NoSuchKey", "404", "NotFound", "NoSuchUpload"}


def parse_url(url: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` -> (bucket, "prefix/"); the prefix may be empty."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise InputError(f"NARRATE_STORAGE_URL must look like s3://bucket/prefix, not {url!r}")
    prefix = parts.path.strip("/")
    return parts.netloc, f"{prefix}/" if prefix else ""


@dataclass
class Traffic:
    """Bytes this process sent to and read from the store."""

    put: int = 0
    get: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, put: int = 0, get: int = 0) -> None:
        with self.lock:
            self.put += put
            self.get += get


TRAFFIC = Traffic()  # this process's, over every client (bench/storage.py reads it)


@contextlib.contextmanager
def translated(what: str, key: str) -> Iterator[None]:
    """botocore's and s3transfer's errors as narrate's: a missing key is FileNotFoundError,
    anything else (after botocore's retries) StorageUnavailable naming the call."""
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in MISSING:
            raise FileNotFoundError(2, "no such object", key) from None
        log.warning("object storage refused %s %s: %s", what, key, code)
        raise StorageUnavailable(f"object storage refused {what} {key!r}: {code}") from exc
    except (BotoCoreError, Boto3Error) as exc:
        log.warning("object storage unreachable after retries (%s %s): %s", what, key, exc)
        raise StorageUnavailable(f"object storage unreachable ({what} {key!r}): {exc}") from exc


def log_retry(
    attempts: int,
    response: Any = None,
    caught_exception: BaseException | None = None,
    **_: Any,
) -> None:
    """botocore's ``needs-retry`` event, observed (never answered: botocore decides): every
    failed attempt of a call is logged, so a store that backs off leaves a trace."""
    status = response[0].status_code if response is not None else None
    if caught_exception is not None or (status is not None and (status >= 500 or status == 429)):
        why = type(caught_exception).__name__ if caught_exception is not None else f"HTTP {status}"
        log.warning("object storage attempt %d failed: %s", attempts, why)


class HeadObject(TypedDict):
    """The fields of boto3's head_object answer the artifacts read."""

    ContentLength: int
    ETag: str
    LastModified: datetime


class S3Objects:
    """One bucket through one client (made on first use: after a worker forks)."""

    def __init__(self, settings: Settings, bucket: str) -> None:
        self.settings = settings
        self.bucket = bucket
        self.traffic = TRAFFIC
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = make_client(self.settings)
            return self._client

    def transfer(self) -> Any:
        from boto3.s3.transfer import TransferConfig

        size = self.settings.s3_part_size
        return TransferConfig(multipart_threshold=size, multipart_chunksize=size)

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        extra = {"ContentType": content_type} if content_type else {}
        with translated("put", key):
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, **extra)
        self.traffic.count(put=len(data))

    def put_file(self, key: str, path: Path, content_type: str | None = None) -> None:
        """Upload a local file: one atomic put, or a multipart upload that s3transfer aborts
        if any part fails (no half object ever appears under ``key``)."""
        extra = {"ContentType": content_type} if content_type else None
        with translated("put", key):
            self.client.upload_file(
                str(path), self.bucket, key, ExtraArgs=extra, Config=self.transfer()
            )
        self.traffic.count(put=path.stat().st_size)

    def get_bytes(self, key: str, byte_range: str | None = None) -> bytes:
        extra = {"Range": byte_range} if byte_range else {}
        with translated("get", key):
            body = self.client.get_object(Bucket=self.bucket, Key=key, **extra)["Body"]
            data: bytes = body.read()
        self.traffic.count(get=len(data))
        return data

    def get_file(self, key: str, path: Path) -> None:
        """Download to ``path`` under a temporary name, renamed when complete."""
        tmp = path.with_name(f".{path.name}.part")
        try:
            with translated("get", key):
                self.client.download_file(self.bucket, key, str(tmp), Config=self.transfer())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        self.traffic.count(get=path.stat().st_size)

    def head(self, key: str) -> HeadObject | None:
        try:
            with translated("head", key):
                found = self.client.head_object(Bucket=self.bucket, Key=key)
            return HeadObject(
                ContentLength=found["ContentLength"],
                ETag=found["ETag"],
                LastModified=found["LastModified"],
            )
        except FileNotFoundError:
            return None

    def copy(self, source: str, key: str) -> None:
        """A server-side copy: no byte goes through this machine."""
        with translated("copy", key):
            self.client.copy(
                {"Bucket": self.bucket, "Key": source}, self.bucket, key, Config=self.transfer()
            )

    def delete_prefix(self, prefix: str) -> None:
        """Every object under ``prefix``, and every unfinished multipart upload there."""
        with translated("delete", prefix):
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
                if keys:
                    self.client.delete_objects(
                        Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True}
                    )
            uploads = self.client.list_multipart_uploads(Bucket=self.bucket, Prefix=prefix)
            for up in uploads.get("Uploads", []):
                self.client.abort_multipart_upload(
                    Bucket=self.bucket, Key=up["Key"], UploadId=up["UploadId"]
                )

    def keys(self, prefix: str) -> list[str]:
        with translated("list", prefix):
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            return [o["Key"] for page in pages for o in page.get("Contents", [])]

    def listing(self, prefix: str) -> list[tuple[str, int, float]]:
        """(key, bytes, last modified) of every object under ``prefix``, and of every
        unfinished multipart upload there (0 bytes, when it was started)."""
        with translated("list", prefix):
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            found = [
                (o["Key"], int(o["Size"]), o["LastModified"].timestamp())
                for page in pages
                for o in page.get("Contents", [])
            ]
            uploads = self.client.list_multipart_uploads(Bucket=self.bucket, Prefix=prefix)
        return found + [
            (u["Key"], 0, u["Initiated"].timestamp()) for u in uploads.get("Uploads", [])
        ]

    def presign(self, key: str, seconds: int, filename: str) -> str:
        with translated("presign", key):
            url: str = self.client.generate_presigned_url(
                "get_object",
                Params={
                    "Bucket": self.bucket,
                    "Key": key,
                    "ResponseContentDisposition": f'attachment; filename="{filename}"',
                },
                ExpiresIn=seconds,
            )
        return url


def make_client(settings: Settings) -> Any:
    """A client for ``s3_endpoint_url`` (or AWS); credentials and region come from the
    standard AWS variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION or
    AWS_REGION) or any other source boto3 knows."""
    import boto3  # boto3 loads slowly: only processes that use object storage pay for it
    from botocore.config import Config

    if settings.s3_retry_mode not in ("standard", "adaptive", "legacy"):
        raise InputError(f"NARRATE_S3_RETRY_MODE must be standard or adaptive, not "
                         f"{settings.s3_retry_mode!r}")  # fmt: skip
    config = Config(
        retries={"max_attempts": settings.s3_max_attempts, "mode": settings.s3_retry_mode},
        connect_timeout=settings.s3_connect_timeout,
        read_timeout=settings.s3_read_timeout,
        # Stores other than AWS (MinIO, moto, Ceph) are reached by path, not by subdomain.
        s3={"addressing_style": "path" if settings.s3_endpoint_url else "auto"},
        signature_version="s3v4",
    )
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    session = boto3.session.Session()
    client = session.client(
        "s3", endpoint_url=settings.s3_endpoint_url or None, region_name=region, config=config
    )
    client.meta.events.register("needs-retry.s3", log_retry)
    return client

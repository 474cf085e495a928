"""moto's S3 protocol server for the fleet tests: one per module, in this process."""

from __future__ import annotations

import boto3

from tests.support.stack import free_port

BUCKET, PREFIX = "narrate", "fleet/"
AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class S3Server:
    """moto's S3 in this process, on a port of its own; stop() and start() again keep the
    objects (moto's state lives in the process)."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.client = boto3.client(
            "s3", endpoint_url=self.url, region_name="us-east-1",
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip

    def keys(self, prefix: str = PREFIX) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        return sorted(o["Key"] for p in pages for o in p.get("Contents", []))


def s3_env(s3: S3Server) -> dict[str, str]:
    return {
        **AWS,
        "NARRATE_STORAGE_URL": f"s3://{BUCKET}/{PREFIX.rstrip('/')}",
        "NARRATE_S3_ENDPOINT_URL": s3.url,
        "NARRATE_S3_MAX_ATTEMPTS": "2",
        "NARRATE_S3_CONNECT_TIMEOUT": "2",
    }

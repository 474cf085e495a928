"""The composition root builds each outside client once: the service's TTS cache lives in the
one storage its jobs' files and artifacts use (on S3: one boto3 client, not a second)."""

from __future__ import annotations

from pathlib import Path

from service import wiring
from service.adapters.storage.s3 import S3Blobs, S3Storage
from service.adapters.tts.cache import CachedEngine
from service.config import Settings


def test_the_tts_cache_is_kept_in_the_services_one_storage(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        redis_url="memory://",
        storage_url="s3://narrate-bucket/jobs",
        s3_endpoint_url="http://127.0.0.1:9",  # never reached: nothing here is stored
    )
    built = wiring.build(settings)
    assert isinstance(built.storage, S3Storage)
    caches = [e.store for e in built.pipeline.engines.values() if isinstance(e, CachedEngine)]
    assert len(caches) == len(built.pipeline.engines) > 0
    assert all(isinstance(c, S3Blobs) and c.objects is built.storage.objects for c in caches)

"""NARRATE_REDIS_URL's Sentinel form, parsed once for every client and for the broker."""

from __future__ import annotations

import pytest

from service.adapters.redis.url import SentinelUrl, broker, parse_sentinel
from service.domain.errors import InputError


def test_a_sentinel_url_names_the_sentinels_the_primary_and_the_db() -> None:
    assert parse_sentinel("sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26380/narrate/2") == (
        SentinelUrl((("10.0.0.1", 26379), ("10.0.0.2", 26380)), "narrate", 2, None, "s3cret")
    )
    assert parse_sentinel("sentinel://h:26379/mymaster") == SentinelUrl((("h", 26379),), "mymaster")
    assert parse_sentinel("redis://h:6379/0") is None and parse_sentinel("rediss://h/0") is None


@pytest.mark.parametrize(
    "url",
    [
        "sentinel://h:26379",
        "sentinel://h/narrate",
        "sentinel://h:26379/narrate/x",
        "sentinel:///narrate",
    ],
)
def test_a_malformed_sentinel_url_is_refused_with_its_form(url: str) -> None:
    with pytest.raises(InputError, match="NARRATE_REDIS_URL"):
        parse_sentinel(url)


def test_celery_gets_kombus_form_and_the_master_name() -> None:
    assert broker("sentinel://:pw@a:1,b:2/narrate/3") == (
        "sentinel://:pw@a:1/3;sentinel://:pw@b:2/3",
        {"master_name": "narrate", "sentinel_kwargs": {"password": "pw"}},
    )
    assert broker("redis://h:6379/0") == ("redis://h:6379/0", {})
